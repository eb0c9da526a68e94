/* forker NAME SECONDS GAP_US RUN_US: spin for SECONDS; every GAP_US fork a child named
 * NAME-c that spins RUN_US and exits (children auto-reaped). The parent never blocks, so
 * each fork's wakeup lands on a busy CPU whose current task is the parent itself. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec + t.tv_nsec/1e9; }
int main(int argc, char **argv){
  if (argc < 5) { fprintf(stderr, "usage: forker NAME SECONDS GAP_US RUN_US\n"); return 2; }
  prctl(PR_SET_NAME, argv[1], 0, 0, 0);
  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = SIG_IGN; sa.sa_flags = SA_NOCLDWAIT;
  sigaction(SIGCHLD, &sa, NULL);
  double t0 = now(), end = t0 + atof(argv[2]), gap = atof(argv[3])/1e6, run = atof(argv[4])/1e6;
  char child[16]; snprintf(child, sizeof child, "%.13s-c", argv[1]);
  double next = t0 + gap; unsigned long forks = 0; volatile unsigned long x = 0;
  while (now() < end) {
    for (int i = 0; i < 2000; i++) x++;
    if (now() >= next) {
      next += gap;
      pid_t k = fork();
      if (k == 0) { prctl(PR_SET_NAME, child, 0, 0, 0); double e = now() + run; while (now() < e) x++; _exit(0); }
      if (k > 0) forks++;
    }
  }
  printf("%s forks=%lu\n", argv[1], forks);
  return 0;
}
