/*
 * A one-broker Kafka cluster for tests, from librdkafka's mock cluster (Debian: librdkafka-dev).
 * Prints the bootstrap servers on one stdout line, then serves until stdin closes (the parent
 * exited or called stop) or SIGTERM/SIGINT arrives. Built and run by src/kafka-mock.ts.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stopping = 0;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

/* The mock needs an rd_kafka_t for bookkeeping only; its own log lines are noise here. */
static void drop_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
  (void)rk, (void)level, (void)fac, (void)buf;
}

static void wait_until_stopped(void) {
  struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
  char buf[256];
  while (!stopping) {
    int ready = poll(&in, 1, 500);
    if (ready < 0 && errno != EINTR) return;
    if (ready > 0) {
      ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
    }
  }
}

int main(void) {
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, drop_log);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!rk) {
    fprintf(stderr, "mock-broker: rd_kafka_new failed: %s\n", errstr);
    return 1;
  }

  rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(rk, 1);
  if (!cluster) {
    fprintf(stderr, "mock-broker: rd_kafka_mock_cluster_new failed\n");
    rd_kafka_destroy(rk);
    return 1;
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  printf("%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  fflush(stdout);

  wait_until_stopped();

  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(rk);
  return 0;
}
