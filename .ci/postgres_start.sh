#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server from Debian's packages on loopback,
# as the `postgres` user (the server refuses root), with a role that logs
# in by password (scram-sha-256), so that the stores are tested the way a
# deployment reaches its database.
#
#   .ci/postgres_start.sh DIR PORT
#
# Writes DIR/env (IDENTITY_TEST_POSTGRES_URL, PGPASSWORD for that role) to
# be sourced; the password is random and never on a command line.
set -euo pipefail
dir=$1
port=$2

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq postgresql >/dev/null
fi
bin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -1)")

as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
password=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
umask 077
printf '%s\n' "$password" > "$dir/password"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/password"

as_postgres "$bin/initdb" --pgdata="$dir/data" --auth-local=trust --auth-host=scram-sha-256 --username=postgres >/dev/null
as_postgres "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200" start >/dev/null
# The role's password goes through psql's standard input, not its arguments.
as_postgres "$bin/psql" --quiet --host="$dir" --port="$port" --username=postgres --dbname=postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE ROLE identity LOGIN PASSWORD '$password';
CREATE DATABASE identity_test OWNER identity;
SQL
cat > "$dir/env" <<ENV
export IDENTITY_TEST_POSTGRES_URL=postgres://identity@127.0.0.1:$port/identity_test?sslmode=disable
export PGPASSWORD=$password
export IDENTITY_TEST_POSTGRES_ADMIN_SOCKET=$dir
export IDENTITY_TEST_POSTGRES_PORT=$port
ENV
[ "$(id -u)" = 0 ] && chmod 644 "$dir/env"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)"
