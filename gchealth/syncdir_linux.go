package gchealth

import "os"

// syncDir makes a folder's entries (a file created or renamed in it)
// durable: fsync(2) of the folder.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
