/* The long workload of `tigris-sim bench` (tigris-sim, GPL-2.0-or-later): the demo's int8 CNN
 * (demo.c, unchanged) run whole BENCH_ROUNDS times, about a billion instructions, so that a run
 * takes seconds and start-up costs vanish from the speed figures. Each round draws new weights and
 * prints its results, so no round repeats another's work. */
#define main demo_main
#include "demo.c"
#undef main

#ifndef BENCH_ROUNDS
#define BENCH_ROUNDS 100
#endif

int main(void)
{
    for (int round = 0; round < BENCH_ROUNDS; round++)
        if (demo_main() != 0)
            return 1;
    return 0;
}
