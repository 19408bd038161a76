package main

import (
	"context"

	"github.com/ldhub/ldhub/cmd/internal/convertcmd"
)

// runConvert implements `ldhub convert`; cmd/ldconvert is the same command without the hub linked in.
func runConvert(ctx context.Context, env *environment, args []string) error {
	return convertcmd.Run(ctx, env.stdin, env.stdout, "ldhub convert", args)
}
