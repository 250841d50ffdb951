package sqlite

import "syscall"

// available returns the bytes the file system holding dir has available
// to the process (statfs's f_bavail: without the blocks reserved for
// root), and whether it could tell.
func available(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
