package kits

import (
	"errors"
	"fmt"
)

// expectErr checks that err matches target.
func expectErr[T any](c *Case[T], op, args string, err, target error) error {
	if !errors.Is(err, target) {
		return c.Failf(op, args, err, fmt.Sprintf("error matching %v", target))
	}
	return nil
}
