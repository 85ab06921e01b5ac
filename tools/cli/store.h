/* The collector's reading store, behind one interface: SQLite (a file, the default) or
 * PostgreSQL (a postgresql:// URL, through libpq). The same two tables in both
 * (docs/collector.md, "Database schema"). Rows are written in batches, each one transaction: all
 * of a batch is committed, or none of it. A reading is keyed on (node, session, epoch, seq): the
 * node's certificate name, the collector's random name for the connection, and the DTLS record's
 * epoch and sequence number. A reading already stored under its key is skipped, so a batch written
 * twice (a retry after a lost connection to the server) stores each reading once. */
#ifndef SE_CLI_STORE_H
#define SE_CLI_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int event;                    /* 1: a row of events(at, peer, kind, detail); 0: of readings */
    char at[32], peer[64], node[65], key_hex[65], session[17], kind[24], detail[160];
    uint16_t epoch;
    uint64_t seq;
    uint8_t *payload;
    size_t len;
} store_row;

typedef struct store store;

/* Opens the database where names, creating the tables if missing: a postgresql:// or postgres://
 * URL (libpq's connection string), else an SQLite file. NULL after printing why. */
store *store_open(const char *where);
/* Writes n rows in one transaction: 0 when it committed, -1 (the error printed) when not. */
int store_write(store *s, const store_row *rows, size_t n);
void store_close(store *s);
/* "sqlite" or "postgresql". */
const char *store_kind(const store *s);

#endif
