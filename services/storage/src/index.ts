export { startStorage, STORAGE_SCHEMA, STORAGE_CONSUMER, type StorageOptions } from './service.js';
export { storageConfigShape, storageSettings, type StorageConfig, type StorageSettings } from './config.js';
export { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './domain/upload-limits.js';
