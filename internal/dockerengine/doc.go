// Package dockerengine is the small client of the Docker Engine API that `certify --image` needs:
// run a container with a published port, inspect it and its image, read its logs, pause, resume
// and remove it. It speaks HTTP to the engine's socket with the standard library only, so the
// binary carries no Docker SDK, whose package initialisation (and that of its dependencies)
// every command would otherwise pay at start-up.
//
// The engine is found as the docker CLI finds it: DOCKER_HOST (unix:// or tcp://, with
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH for TLS), else the current docker context
// (DOCKER_CONTEXT or ~/.docker/config.json), else the first socket that exists of
// /var/run/docker.sock, $XDG_RUNTIME_DIR/docker.sock and ~/.docker/run/docker.sock. An image
// absent locally is pulled, with the credentials ~/.docker/config.json stores for its registry
// (an "auth" entry; credential helpers are not run).
//
//	eng, err := dockerengine.FromEnv()
//	id, err := eng.Run(ctx, dockerengine.RunSpec{Image: "acme/bridge:1", Env: env, Port: "8080/tcp"})
//	defer eng.Remove(ctx, id)
//	ins, err := eng.Inspect(ctx, id) // ins.State.Running, ins.HostPort("8080/tcp")
package dockerengine
