#ifndef QAPITAL_CNCURSES_SHIM_H
#define QAPITAL_CNCURSES_SHIM_H

/* Wide-character ncurses: these must come before any system header. */
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <wchar.h>
#include <stdio.h>
#include <ncursesw/curses.h>
#include <langinfo.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>

/* Macros and globals that Swift cannot import (or refuses in Swift 6 mode as shared
   mutable state) are read through these tiny functions. */

static inline WINDOW *qt_stdscr(void) { return stdscr; }
static inline int qt_lines(void) { return LINES; }
static inline int qt_cols(void) { return COLS; }
static inline int qt_colors(void) { return COLORS; }
static inline int qt_color_pairs(void) { return COLOR_PAIRS; }
static inline FILE *qt_stdin(void) { return stdin; }
static inline FILE *qt_stdout(void) { return stdout; }
static inline FILE *qt_stderr(void) { return stderr; }

static inline attr_t qt_a_normal(void) { return A_NORMAL; }
static inline attr_t qt_a_bold(void) { return A_BOLD; }
static inline attr_t qt_a_dim(void) { return A_DIM; }
static inline attr_t qt_a_reverse(void) { return A_REVERSE; }
static inline attr_t qt_a_underline(void) { return A_UNDERLINE; }
static inline attr_t qt_a_italic(void) { return A_ITALIC; }

static inline int qt_key_f(int n) { return KEY_F(n); }

static inline mmask_t qt_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t qt_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t qt_button1_clicked(void) { return BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED; }

/* The window size as the kernel knows it, for resizeterm after SIGWINCH (ioctl is variadic). */
static inline int qt_window_size(int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

/* The text area in pixels as the kernel knows it (xterm fills these in; many leave them 0). */
static inline int qt_window_pixels(int fd, int *width, int *height) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_xpixel == 0 || ws.ws_ypixel == 0) return -1;
    *width = ws.ws_xpixel;
    *height = ws.ws_ypixel;
    return 0;
}

/* A pseudo-terminal of the given size for benchmarks: returns the master fd (or -1) and puts
   the slave's path in `path`. ioctl is variadic, hence C. */
static inline int qt_open_pty(int rows, int cols, char *path, size_t pathSize) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, path, pathSize) != 0
        || ioctl(master, TIOCSWINSZ, &ws) != 0) {
        close(master);
        return -1;
    }
    return master;
}

/* Runs `argv[0]` in a new session whose controlling terminal is the pty slave at `slavePath`
   (less reads keys from /dev/tty, so a plain pipe will not do). Only async-signal-safe calls
   between fork and exec. Returns the child's pid, or -1. For qapital-bench. */
static inline pid_t qt_spawn_on_pty(int master, const char *slavePath, char *const argv[], char *const envp[]) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    close(master);
    setsid();
    int fd = open(slavePath, O_RDWR);
    if (fd < 0) _exit(127);
    ioctl(fd, TIOCSCTTY, 0);
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2) close(fd);
    execve(argv[0], argv, envp);
    _exit(127);
}

/* Crash restore. It lives in C because a signal handler may only call async-signal-safe
   functions; Swift code there could take locks or allocate. The state is written once, before
   the handlers are installed, and only read inside them. It is a function-local static because
   Swift's importer emits a header's static inline functions (with their local statics) but not
   its file-scope static variables; only TermUI calls these, so there is one copy. */
struct qt_crash_state {
    struct termios termios;
    int termios_valid;
    struct sigaction previous[NSIG];
    /* The exit status the watchdog ends the process with (0: not armed). */
    volatile sig_atomic_t watchdog_status;
};

static inline struct qt_crash_state *qt_crash_state(void) {
    static struct qt_crash_state state;
    return &state;
}

/* Puts the terminal back as it was before initscr: modes, then the escape sequences that leave
   the alternate screen, show the cursor, reset colours, stop mouse reports, leave keypad mode.
   Only async-signal-safe calls. */
static inline void qt_restore_terminal_raw(void) {
    static const char reset[] = "\033[?2026l\033[r\033[?1049l\033[?25h\033[0m\033[?1000l\033[?1002l\033[?1006l\033[?1l\033>\r\n";
    struct qt_crash_state *state = qt_crash_state();
    if (state->termios_valid) tcsetattr(STDIN_FILENO, TCSANOW, &state->termios);
    ssize_t ignored = write(STDOUT_FILENO, reset, sizeof reset - 1);
    (void)ignored;
}

static inline void qt_crash_handler(int sig) {
    struct qt_crash_state *state = qt_crash_state();
    qt_restore_terminal_raw();
    /* Already quitting on a signal: a crash on the way out ends the process now, instead of
       waiting for the runtime's backtracer (which may wait for a key). */
    if (state->watchdog_status != 0) _exit(state->watchdog_status);
    /* Put the previous action back and return. A fault happens again and takes that action; a
       signal sent by kill() or raise() is raised once more (pending until we return). Either way
       the runtime's crash report or the default core dump still happens, on a clean screen. */
    sigaction(sig, &state->previous[sig], NULL);
    raise(sig);
}

/* Saves the terminal modes as they are now (call before initscr) and installs the handler. */
static inline void qt_install_crash_restore(void) {
    static const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    struct qt_crash_state *state = qt_crash_state();
    if (tcgetattr(STDIN_FILENO, &state->termios) == 0) state->termios_valid = 1;
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = qt_crash_handler;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, &state->previous[signals[i]]);
    }
}

/* The exit watchdog: once a quit signal has been seen, the process ends within `seconds` even
   if the app cannot get there itself (a blocked main actor, a teardown that hangs). SIGALRM's
   handler needs no thread of the app: it restores the terminal and calls _exit. Arming it a
   second time changes nothing. */
static inline void qt_watchdog_handler(int sig) {
    (void)sig;
    qt_restore_terminal_raw();
    _exit(qt_crash_state()->watchdog_status);
}

static inline void qt_arm_exit_watchdog(int status, unsigned seconds) {
    struct qt_crash_state *state = qt_crash_state();
    if (state->watchdog_status != 0) return;
    state->watchdog_status = status;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = qt_watchdog_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    sigset_t alarm_only;
    sigemptyset(&alarm_only);
    sigaddset(&alarm_only, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
    alarm(seconds);
}

/* Puts the previous crash actions back, after a normal stop. */
static inline void qt_remove_crash_restore(void) {
    static const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    struct qt_crash_state *state = qt_crash_state();
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        sigaction(signals[i], &state->previous[signals[i]], NULL);
    }
}

/* The terminal as the start-up probe needs it: no echo, no line buffering, reads that return
   at once (poll waits); signals stay on. `saved` is what qt_probe_leave puts back. */
static inline int qt_probe_enter(int fd, struct termios *saved) {
    if (tcgetattr(fd, saved) != 0) return -1;
    struct termios raw = *saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSANOW, &raw);
}

static inline void qt_probe_leave(int fd, const struct termios *saved) { tcsetattr(fd, TCSANOW, saved); }

/* wchar.h declares wcwidth only under _XOPEN_SOURCE, which the module does not define. */
extern int wcwidth(wchar_t c);
/* glibc's allocator: at most `arenas` arenas (M_ARENA_MAX); 1 when it took the setting. */
static inline int qt_limit_malloc_arenas(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

static inline int qt_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }

/* True when LC_CTYPE's codeset is UTF-8. */
static inline int qt_codeset_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

static inline mmask_t qt_wheel_mask(void) { return BUTTON4_PRESSED | BUTTON5_PRESSED; }
/* The wheel and left presses: a press is a click at once (no click interval to wait for). */
static inline mmask_t qt_mouse_mask(void) { return BUTTON4_PRESSED | BUTTON5_PRESSED | BUTTON1_PRESSED | BUTTON1_CLICKED; }
static inline mmask_t qt_button1_press_or_click(void) { return BUTTON1_PRESSED | BUTTON1_CLICKED; }
static inline int qt_key_mouse(void) { return KEY_MOUSE; }

#endif

