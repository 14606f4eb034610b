package httpapi

// NewLocalQueue returns the in-process Queue that a Server uses when
// Options.Queue is nil: a FIFO list served by workers goroutines (at least
// one). Its jobs live in this process only; the Server re-enqueues its
// store's unfinished jobs when it starts.
func NewLocalQueue(workers int) Queue {
	return newLocalQueue(max(workers, 1))
}
