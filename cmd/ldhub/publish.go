package main

import (
	"fmt"
	"log/slog"

	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/objstore"
)

// publishS3Usage is the help of --publish-s3, shared by build and serve.
const publishS3Usage = "publish the public tree to this S3-compatible bucket, http(s)://HOST[:PORT]/BUCKET[/PREFIX][?region=R], " +
	"signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) from the environment (env LDHUB_PUBLISH_S3)"

// newPublisher makes the publisher for --publish-s3 ("" for none). Credentials come only from the environment, so
// that they never show in a process list or a shell history.
func newPublisher(env *environment, target string, themes []string, log *slog.Logger) (*objstore.Publisher, error) {
	if target == "" {
		return nil, nil
	}
	t, err := objstore.ParseTarget(target)
	if err != nil {
		return nil, fmt.Errorf("--publish-s3: %w", err)
	}
	if t.Region == "" {
		t.Region = env.getenv("AWS_REGION")
	}
	script, err := html.Script(themes...)
	if err != nil {
		return nil, fmt.Errorf("--publish-s3: the theme's script: %w", err)
	}
	return objstore.New(objstore.Options{Target: t, Script: script, Log: log,
		AccessKey: env.getenv("AWS_ACCESS_KEY_ID"), SecretKey: env.getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: env.getenv("AWS_SESSION_TOKEN")})
}
