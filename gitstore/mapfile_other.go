//go:build !unix

package gitstore

import "os"

// mapFile reads the first size bytes of f where files are not mapped.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	data, err := readFile(f, size)
	return data, nil, err
}
