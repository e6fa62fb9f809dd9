export {
  ARCHIVE_LIMITS,
  archiveDirectory,
  entryPath,
  extractArchive,
} from './archive-reader.js';
