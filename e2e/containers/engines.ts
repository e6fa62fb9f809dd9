import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { freePort } from '@policyhub/testing';

export interface Engines {
  databaseUrl: string;
  kafkaBrokers: string[];
  redisUrl: string;
  s3: { endpoint: string; bucket: string; accessKey: string; secretKey: string; region: string };
  stop(): Promise<void>;
}

/** Real Postgres, Kafka (KRaft, single node), MinIO and Redis, each in its own container. */
export async function startEngines(): Promise<Engines> {
  const started: StartedTestContainer[] = [];
  try {
    const postgres = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_PASSWORD: 'postgres', POSTGRES_DB: 'policyhub' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    started.push(postgres);

    // Kafka advertises the address clients must use, so the host port is fixed before start.
    const kafkaPort = await freePort();
    const kafka = await new GenericContainer('apache/kafka:3.8.0')
      .withExposedPorts({ container: 9092, host: kafkaPort })
      .withEnvironment({
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
        KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${kafkaPort}`,
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      })
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .start();
    started.push(kafka);

    const minio = await new GenericContainer('minio/minio:RELEASE.2024-10-13T13-34-11Z')
      .withCommand(['server', '/data'])
      .withEnvironment({ MINIO_ROOT_USER: 'policyhub', MINIO_ROOT_PASSWORD: 'policyhub-secret' })
      .withExposedPorts(9000)
      .withWaitStrategy(Wait.forHttp('/minio/health/ready', 9000))
      .start();
    started.push(minio);

    const redis = await new GenericContainer('redis:7.4-alpine')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start();
    started.push(redis);

    return {
      databaseUrl: `postgres://postgres:postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/policyhub`,
      kafkaBrokers: [`127.0.0.1:${kafkaPort}`],
      redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
      s3: {
        endpoint: `http://${minio.getHost()}:${minio.getMappedPort(9000)}`,
        bucket: 'policyhub-containers',
        accessKey: 'policyhub',
        secretKey: 'policyhub-secret',
        region: 'us-east-1',
      },
      async stop() {
        for (const c of started.reverse()) await c.stop();
      },
    };
  } catch (err) {
    for (const c of started.reverse()) await c.stop().catch(() => {});
    throw err;
  }
}
