import { InProcessTransport } from '../src/index.js';
import { describeTransportContract } from './transport-contract.js';

describeTransportContract('in-process', async () => {
  const transport = new InProcessTransport();
  return { transport, cleanup: () => transport.close() };
});
