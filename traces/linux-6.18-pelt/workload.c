/* The capture's task program: `hog NAME SECONDS [RUN_US SLEEP_US]` sets its comm to NAME and
 * spins for SECONDS; with RUN_US it spins RUN_US then usleep(SLEEP_US), in a loop. */
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int c,char**v){prctl(PR_SET_NAME,v[1]);double secs=atof(v[2]);long run=c>3?atol(v[3]):0,slp=c>4?atol(v[4]):0;
 struct timespec t0,t;clock_gettime(CLOCK_MONOTONIC,&t0);
 for(;;){clock_gettime(CLOCK_MONOTONIC,&t);double e=(t.tv_sec-t0.tv_sec)+(t.tv_nsec-t0.tv_nsec)/1e9;if(e>secs)break;
  if(run){struct timespec s,n;clock_gettime(CLOCK_MONOTONIC,&s);do{clock_gettime(CLOCK_MONOTONIC,&n);}while((n.tv_sec-s.tv_sec)*1000000000L+(n.tv_nsec-s.tv_nsec)<run*1000L);usleep(slp);}}
 return 0;}
