#!/usr/bin/env bats
# The page backend's scenarios (tests/page.bash): against --backend
# page with full counts where it is built, and against ptrace (which
# also watches any width) with counts small enough to single-step.

load helpers
load page
load arm

@test "page: three threads write a 512-byte struct (imm, lock add, 64-byte copy, AVX): counts per writer" {
	require_page
	scenario_page_struct page 5000
}

@test "page: the struct across two pages" {
	require_page
	scenario_page_struct page 5000 -u
}

@test "page: read(2) from a pipe into the struct reads what an unwatched run reads; a kernel write by read" {
	require_page
	scenario_page_read page
}

@test "page: a hot neighbour on the page, written a million times, is counted and is no hit" {
	require_page
	scenario_page_neighbour page 1000000
}

@test "page: a forked child writes the watched page and the neighbour: both finish as unwatched" {
	require_page
	scenario_page_fork page
}

@test "page: a 64 KiB array written at random offsets, then read(2) into: every write attributed, where it landed and what it left" {
	require_page
	scenario_page_array page 20000
}

@test "page -a rw: two threads read and write the watched struct in tight loops: reads and writes exact, apart, per site and thread" {
	require_page
	scenario_page_rw page 1000
}

@test "ptrace: three threads write a 512-byte struct: counts per writer" {
	scenario_page_struct ptrace 30
}

@test "ptrace: the struct across two pages" {
	scenario_page_struct ptrace 10 -u
}

@test "ptrace: read(2) from a pipe into the struct" {
	scenario_page_read ptrace
}

@test "ptrace: a neighbour on the page is no hit" {
	scenario_page_neighbour ptrace 200
}

@test "ptrace: a forked child writes the watched page: both finish as unwatched" {
	scenario_page_fork ptrace
}

@test "ptrace: a 64 KiB array written at random offsets, then read(2) into: where each write landed" {
	scenario_page_array ptrace 40
}

@test "ptrace -a rw: two threads read and write the watched struct: reads and writes exact" {
	scenario_page_rw ptrace 30
}

@test "page: rep movsb and rep stosb over an 8-byte target in the middle of a page: one hit per element that writes it" {
	require_page
	scenario_rep_strings page 2
}

@test "page: rep movsq and rep stosq over an 8-byte target straddling two elements: two hits each" {
	require_page
	scenario_rep_strings page 2 q
}

@test "page: a signal at each write of a thread, pending as its fault is made: a stepped write one fault though the signal runs first, an emulated one too; a hit each with its value, each signal handled once" {
	require_page
	scenario_page_signals 100
}

@test "page: the target's own SIGTRAP at each write: caught by its handler each time, never taken for a step's trap with a hit for a store not made (was: its handler reset to SIG_DFL by the mprotect wp-arm runs, and the target killed)" {
	require_page
	scenario_page_signals 100 5
}

@test "page: a thread that blocks every signal writes the watched word: its SIGSEGV handler and mask kept, its next fault caught (was: the forced fault reset the handler, and the next fault killed it)" {
	require_page
	scenario_page_sigkeep page thread
}

@test "page: a handler with a full sa_mask writes the watched word: the SIGSEGV handler kept" {
	require_page
	scenario_page_sigkeep page mask
}

@test "page: the SIGSEGV handler itself writes the watched word: the handler kept for its next fault" {
	require_page
	scenario_page_sigkeep page handler
}

@test "page: a stepped store (movsq) in a thread that blocks every signal but SIGSEGV: its SIGTRAP handler kept, its next int3 caught (was: the step's forced trap reset it, and the int3 killed it)" {
	require_page
	scenario_page_sigkeep page trap
}

@test "ptrace: writes where SIGSEGV and SIGTRAP are blocked: both handlers kept (was: a new thread, born with every signal blocked by pthread_create, was stepped, and its trap took the SIGTRAP handler)" {
	scenario_page_sigkeep ptrace thread
	scenario_page_sigkeep ptrace handler
}

@test "page: a vfork child stores the watched counter 9 times, then exits: each store a hit of its own, exact; both finish as unwatched" {
	require_page
	scenario_vfork page
}

@test "page: a vfork child stores the watched counter 9 times, then execs (posix_spawn): each store a hit of its own, exact; the watch goes on" {
	require_page
	scenario_vfork page -E /bin/true
}

@test "ptrace: a vfork child stores the watched counter 9 times, then exits: each store a hit of its own, exact; both finish as unwatched" {
	scenario_vfork ptrace
}

@test "ptrace: a vfork child stores the watched counter 9 times, then execs (posix_spawn): each store a hit of its own, exact; the watch goes on" {
	scenario_vfork ptrace -E /bin/true
}

@test "page: the watch ends while a vfork child stores and its parent waits in vfork: it ends on time, the child's stores counted to the last value, both finish as unwatched" {
	require_page
	scenario_vfork_cut page
}

@test "ptrace: the watch ends while a vfork child stores and its parent waits in vfork: it ends on time, the child's stores counted to the last value, both finish as unwatched" {
	scenario_vfork_cut ptrace
}
