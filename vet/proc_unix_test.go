//go:build unix

package vet_test

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and has its context
// kill the whole group: mcperrvet -fix and go test start processes of
// their own, which would otherwise outlive a killed parent.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
