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

#endif
