package shell

// interruptSelf is nil: Windows sends Ctrl-C to every process of a console, not to one.
var interruptSelf func() error
