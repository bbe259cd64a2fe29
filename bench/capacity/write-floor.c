/*
 * The kernel's floor for a fan-out: one frame written with write(2) to each of N loopback TCP
 * sockets in a plain C loop, while a forked process holds the other ends. No runtime, no event
 * loop, no reader to wake up: what remains is the system call and the kernel's own work for a
 * loopback segment, which on loopback includes the receiving side's (the segment is delivered to
 * the other socket within the write). No program on this machine writes a loopback socket for
 * less; a server's fan-out to N sockets from one process takes at least N times this.
 *
 * Usage: write-floor SOCKETS ROUNDS FRAME_BYTES. Prints one JSON line:
 * {"sockets":N,"rounds":R,"microsPerSocket":[one figure a round]}.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/*
 * The other ends: opened, then held without waiting on them (the few rounds' frames fit in
 * their receive buffers), so that no write pays for waking a reader up.
 */
static void hold(struct sockaddr_in *address, int count) {
  for (int i = 0; i < count; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)address, sizeof *address) < 0) break;
  }
  for (;;) pause();
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s SOCKETS ROUNDS FRAME_BYTES\n", argv[0]);
    return 2;
  }
  int sockets = atoi(argv[1]), rounds = atoi(argv[2]), frame_bytes = atoi(argv[3]);
  int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 4096) < 0 ||
      getsockname(listener, (struct sockaddr *)&address, &length) < 0) {
    perror("listen");
    return 1;
  }
  pid_t reader = fork();
  if (reader == 0) {
    close(listener);
    hold(&address, sockets);
    return 0;
  }
  int *accepted = malloc(sizeof(int) * sockets), count = 0;
  for (; count < sockets; count++) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) break;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    accepted[count] = fd;
  }
  char *frame = malloc(frame_bytes);
  memset(frame, 'x', frame_bytes);
  printf("{\"sockets\":%d,\"rounds\":%d,\"microsPerSocket\":[", count, rounds);
  for (int round = 0; round < rounds; round++) {
    sleep_ms(100);
    double started = now_ms();
    for (int i = 0; i < count; i++)
      if (write(accepted[i], frame, frame_bytes) != frame_bytes) {
        perror("write");
        return 1;
      }
    printf("%s%.3f", round ? "," : "", (now_ms() - started) * 1000 / count);
  }
  printf("]}\n");
  kill(reader, SIGKILL);
  waitpid(reader, NULL, 0);
  return 0;
}
