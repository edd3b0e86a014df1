//go:build !linux

package harness

// MemoryTemp keeps the system's temporary directory where no memory file
// system is known (see the Linux one); it returns "".
func MemoryTemp() string { return "" }

// memoryDir is "": no memory file system is known.
func memoryDir() string { return "" }
