export {
  ARCHIVE_LIMITS,
  archiveDirectory,
  entryPath,
  extractArchive,
  readArchiveFile,
} from './archive-reader.js';
