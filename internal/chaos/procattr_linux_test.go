package chaos_test

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the agent's process killed when the test's process
// ends, even by a panic: no agent outlives the test.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
