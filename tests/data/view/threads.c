/* The workload of threads.dat (make-threads.sh): three processes with three pthreads each, so the
 * trace holds threads made with CLONE_THREAD. Each task writes "tgid-check tid=T tgid=G" to
 * trace_marker: the trace itself says which process every thread belongs to, and the tests compare
 * what the viewer derives (from task_newtask's clone_flags) with these lines.
 * Shapes covered: plain threads; a thread that makes a thread (its tgid is its process's, not its
 * own); a thread that forks a process of its own (with two threads of its own).
 *   cc -O1 -pthread -o threads threads.c && ./threads [TRACE_MARKER]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int marker = -1;

static void say(const char *name) {
    char line[96];
    prctl(PR_SET_NAME, name);
    int n = snprintf(line, sizeof line, "tgid-check tid=%d tgid=%d comm=%s", gettid(), getpid(), name);
    if (write(marker, line, (size_t)n) != n) perror("trace_marker");
}

/* A little work and a few sleeps: switches, wakeups and runnable time on the task's lane. */
static void work(void) {
    for (int i = 0; i < 4; ++i) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000);
        usleep(1000);
    }
}

struct job {
    int process, thread;
};

static void *thread_main(void *arg);

static void run_threads(int process, int count) {
    pthread_t th[4];
    struct job jobs[4];
    for (int i = 0; i < count; ++i) {
        jobs[i] = (struct job){process, i + 1};
        pthread_create(&th[i], NULL, thread_main, &jobs[i]);
    }
    for (int i = 0; i < count; ++i) pthread_join(th[i], NULL);
}

static void process_main(int process, int threads) {
    char name[16];
    snprintf(name, sizeof name, "proc%d", process);
    say(name);
    run_threads(process, threads);
    work();
}

static void *nested_main(void *arg) {
    (void)arg;
    say("proc2-nested");
    work();
    return NULL;
}

static void *thread_main(void *arg) {
    const struct job *j = arg;
    char name[16];
    snprintf(name, sizeof name, "proc%d-t%d", j->process, j->thread);
    say(name);
    if (j->process == 2 && j->thread == 1) { /* a thread's thread */
        pthread_t t;
        pthread_create(&t, NULL, nested_main, NULL);
        pthread_join(t, NULL);
    }
    if (j->process == 3 && j->thread == 1) { /* a process forked by a thread */
        pid_t c = fork();
        if (c == 0) {
            process_main(4, 2);
            _exit(0);
        }
        waitpid(c, NULL, 0);
    }
    work();
    return NULL;
}

int main(int argc, char **argv) {
    marker = open(argc > 1 ? argv[1] : "/sys/kernel/tracing/trace_marker", O_WRONLY);
    if (marker < 0) {
        perror("trace_marker");
        return 1;
    }
    say("threads-main");
    pid_t kids[3];
    for (int p = 0; p < 3; ++p) {
        kids[p] = fork();
        if (kids[p] == 0) {
            process_main(p + 1, 3);
            _exit(0);
        }
    }
    for (int p = 0; p < 3; ++p) waitpid(kids[p], NULL, 0);
    return 0;
}
