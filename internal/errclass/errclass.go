// Package errclass names the classes a failed operation's error falls in:
// the driver counts and retries by them, a protocol's client sorts its
// errors into them (a SQL flavour's through its dialect), and neither
// knows the other.
package errclass

// Class sorts an error from a server into what the driver does with it.
type Class string

const (
	None          Class = ""
	Deadlock      Class = "deadlock"
	LockWait      Class = "lock_wait_timeout"
	WriteConflict Class = "write_conflict"
	// CertConflict is a cluster's certification conflict: another node's
	// write set touched the same rows first (Galera's 1213 "WSREP detected
	// deadlock/conflict"), not a lock cycle on one server.
	CertConflict   Class = "cert_conflict"
	ConnectionLost Class = "connection_lost"
	DuplicateKey   Class = "duplicate_key"
	Other          Class = "other"
)

// Retryable reports whether a transaction that failed with this class may
// simply be run again: the server rolled it back and nothing is wrong with
// the statements themselves.
func (c Class) Retryable() bool {
	switch c {
	case Deadlock, LockWait, WriteConflict, CertConflict, DuplicateKey:
		return true
	}
	return false
}

// Classifier sorts an error into its class; whoever knows the protocol
// hands one to the driver.
type Classifier func(err error) Class
