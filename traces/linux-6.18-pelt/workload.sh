#!/bin/sh
# The capture's workload (run from the folder holding the compiled workload.c as ./hog).
# both k_ tasks in a new session (their own autogroup), pinned to CPU 1
taskset -c 1 ./hog k_a 5 &
taskset -c 1 ./hog k_s 5 2000 6000 &
wait
