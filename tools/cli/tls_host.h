/* Host glue shared by the CLI's DTLS/TLS programs (client, server, collector): sockets, the
 * identity files (certificate chain, key, trust anchors), the DRBG, the curve, the clock and the
 * options every program takes. Everything prints its own "se: ..." message on failure.
 *
 *   tls_host_opts o; tls_host_opts_init(&o);          defaults: DTLS, all suites, mtu 1200, ...
 *   tls_host_opt(&o, argc, argv, &i)                  parses one common option at argv[i]
 *   tls_host_identity id; tls_host_identity_load(&id, o.cert, o.key, o.ca)
 *   se_ec_curve p256; tls_host_curve(&p256)            secp256r1 on cli_be->ops
 *   se_hmac_drbg_ctx rng; tls_host_rng(&rng)           seeded from the OS (cli_os_random)
 *   se_tls_config cfg; tls_host_config(&cfg, &o, &id, role, &p256, &rng)
 *   int fd = tls_host_connect("host:port", o.tls) / tls_host_udp_bind("[host:]port") /
 *            tls_host_tcp_listen("[host:]port")
 *   tls_host_sock s = {fd}; io.send = tls_host_send; io.ctx = &s;
 *   io.now_ms = tls_host_now_ms;
 *   tls_host_pump(t, fd, deadline, done, arg)          drives one connection over a connected
 *                                                      socket (reads, DTLS timer), for simple programs
 *   len = tls_host_peer(&from, from_len)               a DTLS server's peer bytes (se/dtls_server.h),
 *   tls_host_sendto(fd, peer, len, buf, n)             what its io.send sends to
 */
#ifndef SE_CLI_TLS_HOST_H
#define SE_CLI_TLS_HOST_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "se/tls.h"

#define TLS_HOST_MAX_CHAIN 4    /* certificates of our own chain */
#define TLS_HOST_MAX_ANCHORS 8  /* trust anchors */

/* The options every program takes (see tls_host_opt). */
typedef struct {
    int tls;                    /* --tls: TLS over TCP (default DTLS over UDP) */
    const char *cert, *key, *ca; /* --cert FILE, --key FILE, --ca FILE (NULL if absent) */
    uint16_t suites[3];         /* --suites ccm8,gcm,cbc (order = preference) */
    size_t n_suites;
    size_t mtu;                 /* --mtu N (default 1200) */
    double timeout;             /* --timeout SEC, overall (default 30) */
    uint32_t retransmit_ms;     /* --retransmit-ms N (default 1000) */
    unsigned max_retransmits;   /* --max-retransmits N (default 6) */
    int verbose;                /* --verbose */
    int cid;                    /* --cid: DTLS connection ID (RFC 9146) */
    unsigned faults;            /* --fault bad-finished: SE_TLS_FAULT_* (negative tests) */
} tls_host_opts;

void tls_host_opts_init(tls_host_opts *o);
/* If argv[*i] is a common option, consumes it (and its value), advances *i past it and returns
 * 1; returns 0 if it is not one (the caller handles it), -1 after printing a usage error. */
int tls_host_opt(tls_host_opts *o, int argc, char **argv, int *i);
/* One line per common option, for the programs' --help. */
extern const char tls_host_opts_help[];

/* Own chain + key and the trust anchors, read from PEM/DER files (pem.h). */
typedef struct {
    uint8_t chain_buf[8192];
    const uint8_t *chain[TLS_HOST_MAX_CHAIN];
    size_t chain_len[TLS_HOST_MAX_CHAIN];
    size_t chain_n;
    uint8_t key[32];
    int has_key;
    uint8_t anchor_buf[8192];
    const uint8_t *anchors[TLS_HOST_MAX_ANCHORS];
    size_t anchor_len[TLS_HOST_MAX_ANCHORS];
    size_t n_anchors;
} tls_host_identity;

/* Any path may be NULL (that part stays empty); cert and key go together. 0 or -1. */
int tls_host_identity_load(tls_host_identity *id, const char *cert, const char *key, const char *ca);

/* secp256r1 set up on the chosen backend (cli_be->ops->ec_curve). */
se_status tls_host_curve(se_ec_curve *c);
/* A DRBG instantiated from 48 bytes of OS entropy. */
se_status tls_host_rng(se_hmac_drbg_ctx *rng);
/* Mixes 32 fresh bytes of OS entropy into it (before each connection's keys; it also keeps the
 * reseed counter far from its limit); an error when the OS gave none. */
se_status tls_host_reseed(se_hmac_drbg_ctx *rng);
/* Monotonic milliseconds (se_tls_io.now_ms; ctx unused). */
uint32_t tls_host_now_ms(void *ctx);
/* Unix seconds (se_tls_config.now). */
int64_t tls_host_unix_time(void);

/* Fills cfg from the options and identity (transport, suites, chain, key, anchors, mtu, timers,
 * crypto = cli_be->ops, now); the caller sets server_name, client_auth, cache, faults after. */
void tls_host_config(se_tls_config *cfg, const tls_host_opts *o, const tls_host_identity *id,
                     se_tls_role role, const se_ec_curve *p256, se_hmac_drbg_ctx *rng);

/* Sockets. hostport is "host:port", "[v6addr]:port" or (bind/listen) just "port"; host names
 * resolve with getaddrinfo. Each returns a file descriptor or -1 after printing the reason. */
int tls_host_connect(const char *hostport, int stream); /* TCP (stream) or connected UDP */
int tls_host_udp_bind(const char *hostport);            /* unconnected UDP, for recvfrom */
/* The same with SO_REUSEPORT: several sockets (the collector's workers) on one address and port;
 * the kernel gives each datagram to one of them by a hash of its source and destination. */
int tls_host_udp_bind_shared(const char *hostport);
int tls_host_tcp_listen(const char *hostport);
/* Closes a TCP connection so that what we sent last (a fatal alert) reaches the peer: our side
 * is shut down, then what the peer still sends is read and dropped (at most 500 ms and 1 MiB)
 * before close. Closing with unread input would reset the connection and lose the alert. */
void tls_host_tcp_close(int fd);

/* A send target for se_tls_io.send: send() on a connected socket. */
typedef struct {
    int fd;
} tls_host_sock;
int tls_host_send(void *ctx, const uint8_t *buf, size_t len);

/* A peer address as text ("1.2.3.4:5678"), into buf. */
const char *tls_host_addr_str(const struct sockaddr_storage *ss, socklen_t len, char *buf, size_t cap);

/* DTLS servers over one unconnected UDP socket (se/dtls_server.h, which names peers by opaque
 * bytes): tls_host_peer cleans the address recvfrom gave (everything but family, port, address
 * and an IPv6 scope zeroed, in place), so that one peer always has the same bytes, and returns
 * their length: pass (const uint8_t *)ss and that length to se_dtls_server_input.
 * tls_host_sendto sends a datagram to such bytes (se_dtls_server_io.send; 0 or -1) and
 * tls_host_peer_str prints them as tls_host_addr_str does. */
socklen_t tls_host_peer(struct sockaddr_storage *ss, socklen_t len);
int tls_host_sendto(int fd, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len);
const char *tls_host_peer_str(const uint8_t *peer, size_t peer_len, char *buf, size_t cap);

/* Drives connection t over socket fd (connected UDP or TCP): reads feed se_tls_input, the DTLS
 * timer runs se_tls_timer. Returns SE_OK as soon as done(t, arg) is true (done NULL: when the
 * handshake is over), the connection's error when it fails, SE_ERR_TLS_CLOSED when it is closed
 * (close_notify or the TCP peer went away) before done, SE_ERR_TLS_TIMEOUT at deadline_ms
 * (tls_host_now_ms time). */
se_status tls_host_pump(se_tls *t, int fd, uint32_t deadline_ms, int (*done)(se_tls *t, void *arg),
                        void *arg);

/* se_tls_io.keylog for $SSLKEYLOGFILE: NULL when it is not set, else a function that appends
 * "CLIENT_RANDOM <client random> <master secret>" (hex) to that file (NSS's key log format). */
void (*tls_host_keylog(void))(void *ctx, const uint8_t client_random[32], const uint8_t master[48]);

/* How long a DTLS client waits for the server's close_notify after its own (se client, se load). */
#define TLS_HOST_CLOSE_WAIT_MS 500

/* After our close_notify over DTLS (connected UDP socket fd): waits up to ms milliseconds for the
 * server's answer (RFC 5246 7.2.1: it answers with its own), taking the datagrams before it (a
 * late retransmission, data) unread. */
void tls_host_close_wait(int fd, int ms);

/* "se <prog>: <status name> (alert <name>)" for a failed connection, to stderr. */
void tls_host_print_error(const char *prog, const se_tls *t, se_status st);

#endif
