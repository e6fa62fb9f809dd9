export { startSystem, type SystemOptions, type RunningSystem } from './system.js';
