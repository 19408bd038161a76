package main

import (
	"context"
	"errors"
)

// runConvert is filled in once the codec registry exists (issue 2).
func runConvert(ctx context.Context, env *environment, args []string) error {
	return errors.New("not implemented yet")
}
