/* The collector's reading store (store.h): SQLite and PostgreSQL. */
#include <inttypes.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

struct store {
    sqlite3 *db;                  /* SQLite, or */
    PGconn *pg;                   /* PostgreSQL */
    sqlite3_stmt *ins_reading, *ins_event;
};

const char *store_kind(const store *s)
{
    return s->pg != NULL ? "postgresql" : "sqlite";
}

/* ---- SQLite: WAL, synchronous=FULL; readings skipped by INSERT OR IGNORE on their key ---------- */

static const char sqlite_schema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE IF NOT EXISTS readings("
    " id INTEGER PRIMARY KEY,"
    " node TEXT NOT NULL,"        /* client certificate subject CN */
    " received_at TEXT NOT NULL," /* UTC ISO-8601 with ms */
    " payload BLOB NOT NULL,"     /* one application record, as sent */
    " peer TEXT,"                 /* address:port it came from */
    " key_sha256 TEXT,"           /* hex SHA-256 of the node's public key 04||x||y */
    " session TEXT,"              /* the collector's name for the connection */
    " epoch INTEGER,"             /* the DTLS record's epoch */
    " seq INTEGER);"              /* and sequence number */
    "CREATE INDEX IF NOT EXISTS readings_node ON readings(node, received_at);"
    "CREATE TABLE IF NOT EXISTS events("
    " id INTEGER PRIMARY KEY,"
    " at TEXT NOT NULL,"
    " peer TEXT,"
    " kind TEXT NOT NULL,"        /* connected, closed, handshake_failed, ... */
    " detail TEXT);";

/* A database made before readings had their key gets the three columns (its old rows keep NULL,
 * which the unique index does not compare). */
static const char sqlite_key[] = "CREATE UNIQUE INDEX IF NOT EXISTS readings_once ON readings(node, session, epoch, seq);";

static int sqlite_open(store *s, const char *path)
{
    char *err = NULL;
    if (sqlite3_open(path, &s->db) != SQLITE_OK) {
        fprintf(stderr, "collector: cannot open %s: %s\n", path, sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_busy_timeout(s->db, 5000);
    if (sqlite3_exec(s->db, sqlite_schema, NULL, NULL, &err) != SQLITE_OK)
        goto fail;
    static const char *const added[] = {"session TEXT", "epoch INTEGER", "seq INTEGER"};
    for (size_t i = 0; i < 3; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "ALTER TABLE readings ADD COLUMN %s", added[i]);
        (void)sqlite3_exec(s->db, sql, NULL, NULL, NULL); /* "duplicate column": already there */
    }
    if (sqlite3_exec(s->db, sqlite_key, NULL, NULL, &err) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT OR IGNORE INTO readings(node, received_at, payload, peer, key_sha256, "
                           "session, epoch, seq) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &s->ins_reading, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "INSERT INTO events(at, peer, kind, detail) VALUES(?, ?, ?, ?)", -1,
                           &s->ins_event, NULL) != SQLITE_OK)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "collector: %s: %s\n", path, err ? err : sqlite3_errmsg(s->db));
    sqlite3_free(err);
    return -1;
}

static int sqlite_row(store *s, const store_row *r)
{
    sqlite3_stmt *st = r->event ? s->ins_event : s->ins_reading;
    if (r->event) {
        sqlite3_bind_text(st, 1, r->at, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->peer, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, r->kind, -1, SQLITE_STATIC);
        if (r->detail[0])
            sqlite3_bind_text(st, 4, r->detail, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_text(st, 1, r->node, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->at, -1, SQLITE_STATIC);
        /* a zero-length blob must still be a blob (NULL would break NOT NULL) */
        sqlite3_bind_blob(st, 3, r->len ? (const void *)r->payload : "", (int)r->len, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, r->peer, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, r->key_hex, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, r->session, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 7, r->epoch);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)r->seq);
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "collector: database: %s\n", sqlite3_errmsg(s->db));
        return -1;
    }
    return 0;
}

static int sqlite_write(store *s, const store_row *rows, size_t n)
{
    int ok = sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    for (size_t i = 0; ok && i < n; i++)
        ok = sqlite_row(s, &rows[i]) == 0;
    if (ok && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "collector: database: commit: %s\n", sqlite3_errmsg(s->db));
        ok = 0;
    }
    if (!ok)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return ok ? 0 : -1;
}

/* ---- PostgreSQL: one transaction per batch, a multi-row INSERT per table; readings skipped by
 * ON CONFLICT DO NOTHING on their key. synchronous_commit is the server's (on by default: a
 * COMMIT that returned is on disk). ------------------------------------------------------------- */

static const char pg_schema[] =
    "CREATE TABLE IF NOT EXISTS readings("
    " id BIGSERIAL PRIMARY KEY,"
    " node TEXT NOT NULL,"
    " received_at TEXT NOT NULL,"
    " payload BYTEA NOT NULL,"
    " peer TEXT,"
    " key_sha256 TEXT,"
    " session TEXT,"
    " epoch INTEGER,"
    " seq BIGINT);"
    "CREATE INDEX IF NOT EXISTS readings_node ON readings(node, received_at);"
    "CREATE UNIQUE INDEX IF NOT EXISTS readings_once ON readings(node, session, epoch, seq);"
    "CREATE TABLE IF NOT EXISTS events("
    " id BIGSERIAL PRIMARY KEY,"
    " at TEXT NOT NULL,"
    " peer TEXT,"
    " kind TEXT NOT NULL,"
    " detail TEXT);";

#define PG_ROWS 500 /* rows per INSERT statement (8 parameters each, far below libpq's 65535) */

static int pg_ok(store *s, PGresult *res, const char *what)
{
    ExecStatusType st = PQresultStatus(res);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "collector: database: %s: %s", what, PQerrorMessage(s->pg));
    PQclear(res);
    return ok;
}

static int pg_open(store *s, const char *url)
{
    s->pg = PQconnectdb(url);
    if (PQstatus(s->pg) != CONNECTION_OK) {
        fprintf(stderr, "collector: cannot connect to the database: %s", PQerrorMessage(s->pg));
        return -1;
    }
    /* Quiet the server's notices ("relation already exists, skipping"). */
    return pg_ok(s, PQexec(s->pg, "SET client_min_messages = warning"), "set-up") &&
                   pg_ok(s, PQexec(s->pg, pg_schema), "schema")
               ? 0
               : -1;
}

/* One INSERT of the rows of one kind (event or reading) among rows[0..n), from *next on, at most
 * PG_ROWS of them; *next moves past them. */
static int pg_insert(store *s, const store_row *rows, size_t n, int event, size_t *next)
{
    enum { NP = 8 };
    const char *vals[PG_ROWS * NP];
    int lens[PG_ROWS * NP], fmts[PG_ROWS * NP];
    char nums[PG_ROWS][2][24];
    static char sql[64 + PG_ROWS * 64];
    size_t k = 0, pos;
    int np = event ? 4 : NP;

    pos = (size_t)snprintf(sql, sizeof sql, event ? "INSERT INTO events(at, peer, kind, detail) VALUES "
                                                  : "INSERT INTO readings(node, received_at, payload, peer, "
                                                    "key_sha256, session, epoch, seq) VALUES ");
    for (; *next < n && k < PG_ROWS; (*next)++) {
        const store_row *r = &rows[*next];
        if (r->event != event)
            continue;
        const char **v = &vals[k * (size_t)np];
        int *l = &lens[k * (size_t)np], *f = &fmts[k * (size_t)np];
        for (int j = 0; j < np; j++)
            l[j] = 0, f[j] = 0;
        if (event) {
            v[0] = r->at, v[1] = r->peer, v[2] = r->kind, v[3] = r->detail[0] ? r->detail : NULL;
        } else {
            snprintf(nums[k][0], sizeof nums[k][0], "%u", (unsigned)r->epoch);
            snprintf(nums[k][1], sizeof nums[k][1], "%" PRIu64, r->seq);
            v[0] = r->node, v[1] = r->at, v[2] = r->len ? (const char *)r->payload : "", v[3] = r->peer;
            v[4] = r->key_hex, v[5] = r->session, v[6] = nums[k][0], v[7] = nums[k][1];
            l[2] = (int)r->len, f[2] = 1; /* the payload as binary */
        }
        pos += (size_t)snprintf(sql + pos, sizeof sql - pos, "%s(", k ? "," : "");
        for (int j = 0; j < np; j++)
            pos += (size_t)snprintf(sql + pos, sizeof sql - pos, "%s$%zu", j ? "," : "", k * (size_t)np + (size_t)j + 1);
        pos += (size_t)snprintf(sql + pos, sizeof sql - pos, ")");
        k++;
    }
    if (k == 0)
        return 1;
    if (!event)
        snprintf(sql + pos, sizeof sql - pos, " ON CONFLICT DO NOTHING");
    return pg_ok(s, PQexecParams(s->pg, sql, (int)k * np, NULL, vals, lens, fmts, 0), "insert");
}

static int pg_try(store *s, const store_row *rows, size_t n)
{
    int ok = pg_ok(s, PQexec(s->pg, "BEGIN"), "begin");
    for (int event = 0; event < 2 && ok; event++)
        for (size_t next = 0; ok && next < n;)
            ok = pg_insert(s, rows, n, event, &next);
    if (ok)
        return pg_ok(s, PQexec(s->pg, "COMMIT"), "commit");
    if (PQstatus(s->pg) == CONNECTION_OK)
        PQclear(PQexec(s->pg, "ROLLBACK"));
    return 0;
}

/* A batch whose connection broke (a server restart, a network cut) is written again once over a
 * new connection: readings already committed are skipped by their key. */
static int pg_write(store *s, const store_row *rows, size_t n)
{
    if (pg_try(s, rows, n))
        return 0;
    if (PQstatus(s->pg) == CONNECTION_OK)
        return -1;
    PQreset(s->pg);
    if (PQstatus(s->pg) != CONNECTION_OK) {
        fprintf(stderr, "collector: database: reconnect: %s", PQerrorMessage(s->pg));
        return -1;
    }
    return pg_try(s, rows, n) ? 0 : -1;
}

/* ---- the interface ------------------------------------------------------------------------------ */

store *store_open(const char *where)
{
    store *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    int url = strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0;
    if ((url ? pg_open(s, where) : sqlite_open(s, where)) != 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

int store_write(store *s, const store_row *rows, size_t n)
{
    if (n == 0)
        return 0;
    return s->pg != NULL ? pg_write(s, rows, n) : sqlite_write(s, rows, n);
}

void store_close(store *s)
{
    if (s == NULL)
        return;
    if (s->pg != NULL)
        PQfinish(s->pg);
    sqlite3_finalize(s->ins_reading);
    sqlite3_finalize(s->ins_event);
    if (s->db != NULL)
        sqlite3_close(s->db);
    free(s);
}
