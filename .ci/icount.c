// icount: counts the instructions a program executes between its first two
// getppid() calls (the markers examples/ct_probe.rs places around the
// measured exponentiation), by single-stepping it with ptrace on the real
// CPU. Valgrind cannot run AVX-512 code, so this is how .ci/ct-check counts
// the AVX-512 IFMA path.
//
// Usage: icount PROGRAM [ARGS...]
// Prints the count on standard output; the program's own output passes
// through. Exits with the program's status, or 2 if a marker never came.
//
// A rep-prefixed string instruction traps once per iteration, so it counts
// as many steps as it has iterations; that still depends only on its
// length, which is what the check compares.
//
// The program runs without address-space randomisation, so that every run
// lays out its stack and heap alike: where a buffer falls relative to a page
// or cache line can change how library code (memcpy) steps through it. (CI
// once counted 9 more instructions for one input than for the others, a
// count that 40 runs of that input here did not repeat.)
// A stop for any signal other than the step's own trap is not an
// instruction: it is not counted, and the signal is suppressed.
//
// The tracer pins itself, and so the program, to the CPU it starts on: a
// step wakes the tracer and then the program, and on a virtual machine a
// wake-up from one CPU to another costs an interrupt between them, which
// made a lone count several times as slow (benches/RESULTS.md, `ci-time`).
// Two counts started together start on different CPUs where both are idle.
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what) {
    perror(what);
    exit(2);
}

// Resumes the tracee with `request` and waits for its next stop; returns 0
// if it exited instead.
static int step(pid_t pid, enum __ptrace_request request, int *status) {
    if (ptrace(request, pid, 0, 0) < 0) die("ptrace");
    if (waitpid(pid, status, 0) < 0) die("waitpid");
    return !(WIFEXITED(*status) || WIFSIGNALED(*status));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: icount PROGRAM [ARGS...]\n");
        return 2;
    }
    int cpu = sched_getcpu();
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        // Only speed depends on it: a failure leaves the count as it was.
        (void)sched_setaffinity(0, sizeof one, &one);
    }
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        if (personality(ADDR_NO_RANDOMIZE) < 0) die("personality(ADDR_NO_RANDOMIZE)");
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) die("PTRACE_TRACEME");
        execvp(argv[1], argv + 1);
        die("execvp");
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) die("exec stop");
    if (ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL) < 0)
        die("PTRACE_SETOPTIONS");

    // Run from syscall to syscall until the entry of the first getppid.
    struct user_regs_struct regs;
    unsigned long long marker = 0;
    while (!marker) {
        if (!step(pid, PTRACE_SYSCALL, &status)) {
            fprintf(stderr, "icount: the program exited before its first marker\n");
            return 2;
        }
        if (WSTOPSIG(status) != (SIGTRAP | 0x80)) continue;
        if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0) die("PTRACE_GETREGS");
        if (regs.orig_rax == SYS_getppid) marker = regs.rip - 2; // the `syscall` instruction
    }
    // To the marker's syscall exit, then one instruction at a time until the
    // same `syscall` instruction comes round again.
    if (!step(pid, PTRACE_SYSCALL, &status)) return 2;
    unsigned long long count = 0;
    for (;;) {
        if (!step(pid, PTRACE_SINGLESTEP, &status)) {
            fprintf(stderr, "icount: the program exited before its second marker\n");
            return 2;
        }
        if (WSTOPSIG(status) != SIGTRAP) {
            fprintf(stderr, "icount: signal %d during the count, suppressed\n", WSTOPSIG(status));
            continue;
        }
        count++;
        if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0) die("PTRACE_GETREGS");
        if (regs.rip == marker) break;
    }
    printf("%llu\n", count);
    fflush(stdout);
    // Let the program finish (it checks its own result) and pass on its status.
    if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0) die("PTRACE_DETACH");
    if (waitpid(pid, &status, 0) < 0) die("waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
