export {
  startGrpcService,
  type GrpcServiceOptions,
  type RunningService,
  type ServiceDeps,
} from './grpc-service.js';
export { serviceConfigShape, runServiceMain } from './main.js';
