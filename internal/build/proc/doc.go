// Package proc starts commands none of whose processes outlives the process that started
// them: not when the command exits, not when skewtest is cancelled, and not when skewtest
// is killed with SIGKILL, alone or with its whole process group (as CI runners do at a time
// limit). Every build step (`sh -c`, then `go build`, then `compile`) and every driver is
// started through it.
//
// # Why a guardian
//
// A process group alone cannot do it: a SIGKILLed skewtest signals nothing, and killing
// skewtest's own group does not reach its commands, which have groups of their own (so
// that Ctrl-C and polite stops are skewtest's to give). A parent-death signal
// (PR_SET_PDEATHSIG) alone reaches only the direct child, `sh`, not the `go build` and
// `compile` below it. So Start runs this same program again as a guardian (Main, called
// first in main and in TestMain), which starts the command in its own process group,
// forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to that group, and when
// the command exits kills whatever it left and exits too. The guardian reports the
// command's own exit status on a pipe, so Wait returns "exit status 3" or "signal:
// terminated" for the command, not for the guardian.
//
// # Linux: a PID namespace
//
// The guardian is made with CLONE_NEWPID, so it is init of a new PID namespace, and with a
// parent-death SIGKILL. When a namespace's init dies, for whatever reason, the kernel kills
// every process in the namespace, including those that double-forked, called setsid or
// left the process group: nothing can leave a PID namespace. The guardian dies with
// skewtest (the parent-death signal), and when the command exits it kills the rest
// itself. A new mount namespace (CLONE_NEWNS) holds a /proc of the new PID namespace, so a
// process finds itself at /proc/$PID; / is made private first, so the mount is invisible
// outside.
//
// As root, CLONE_NEWPID is enough. As another user it needs a user namespace too
// (CLONE_NEWUSER), which maps only the user's own uid and gid, to themselves: the command
// runs as the same user (supplementary groups show as 65534 but still grant access;
// setuid programs gain nothing). The guardian keeps CAP_SYS_ADMIN of its own user
// namespace across exec (an ambient capability) to mount /proc, and drops it before it
// starts the command.
//
// The parent-death signal is sent when the thread that forked the child exits, not the
// process. Go runs a goroutine on any thread, and ends a thread when a goroutine locked to
// it exits, so a guardian forked from an arbitrary goroutine could be killed while
// skewtest runs on. Start forks from a goroutine that locks its thread and stays parked
// until Wait has reaped the guardian: that thread lives exactly as long as it must.
//
// Go's own check for a parent that died before the signal was armed (getppid changed)
// cannot work in a new PID namespace, where getppid is 0 (and init ignores the kill it
// sends itself). So each guardian also holds the read end of a lifeline pipe whose only
// writer is skewtest: end of file means skewtest is gone (or called Kill), and the
// guardian kills everything.
//
// # Linux without namespaces: a subreaper
//
// Containers without CAP_SYS_ADMIN, seccomp profiles that refuse unshare, and Ubuntu's
// AppArmor restriction of unprivileged user namespaces refuse the namespaces. The first
// Start probes for them once; when they are refused it says so once on stderr and makes
// the guardian a child subreaper (PR_SET_CHILD_SUBREAPER) instead: the command's orphans
// are reparented to it, and when the command exits or the lifeline closes it kills every
// descendant (found in /proc). That survives a SIGKILL of skewtest or of skewtest's group
// (the guardian has its own group); only a SIGKILL of the guardian itself defeats it.
//
// # macOS and other unix systems: the process group
//
// There are no PID namespaces, subreapers or parent-death signals. The guardian waits on
// the lifeline, which does what kqueue's EVFILT_PROC NOTE_EXIT on the parent would, with
// the same code on every unix and without kqueue's race with a parent that died before the
// watch was registered, and then kills the command's process group. A process that leaves
// the group (setsid, setpgid) escapes: that is the limit there.
//
// # Choosing
//
// SKEWTEST_GUARD overrides the choice: auto (the default: pidns where the kernel allows
// it, else subreaper), pidns, subreaper, group, or off (no guardian: the command runs in
// its own process group with a parent-death SIGKILL on Linux, as before). A program that
// did not call Main runs commands that way too, and says once on stderr that a SIGKILL may
// leave their children running. Mode reports the choice.
//
// Alternatives weighed: a cgroup (cgroup.kill) needs a delegated cgroup tree and still a
// watcher to write to it; a subreaper inside skewtest itself is no help when skewtest is
// the process that was killed.
//
// The cost is one more process per command (this program, a few MB) and one probe at the
// first command of a run.
package proc
