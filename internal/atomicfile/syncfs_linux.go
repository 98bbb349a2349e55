package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFileSystems makes every file under the directories dirs durable
// with one syncfs(2) per directory's file system: it writes back all of
// that file system's dirty data, the files and their directory entries
// included, for the price of one journal commit, where an fsync per file
// pays one each.
func syncFileSystems(dirs []string) (bool, error) {
	for _, dir := range dirs {
		d, err := os.Open(dir)
		if err != nil {
			return false, err
		}
		err = unix.Syncfs(int(d.Fd()))
		if cerr := d.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}
