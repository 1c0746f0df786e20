//go:build !unix

package sqlnb_test

import "errors"

func syscallMkfifo(string) error { return errors.New("not supported") }
