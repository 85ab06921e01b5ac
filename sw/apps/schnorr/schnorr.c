/* A Schnorr identification prover on the node (seed 001's second application): an interactive
 * proof of knowledge of the discrete logarithm x of the node's identity X = x G on P-256, on the
 * backend fixed at build time (SE_FW_BACKEND: the library for sw-*, the engine for sw+hw-*). The
 * verifier runs on the host (tests/node/test_schnorr.py) and talks over the UART, a line each way:
 *   node:  {"op":"identity","X":hex,"status":"ok"}  once, at start (65-byte uncompressed point)
 *   host:  commit                                 node: {"op":"commit","R":hex,"status":"ok"},
 *                                                 R = r G, r random
 *   host:  challenge <64 hex digits>              node: {"op":"response","s":hex,"status":"ok"},
 *                                                 s = r + c x mod n; r is then wiped
 * The verifier accepts when s G = R + c X. A challenge without a fresh commitment (a second
 * challenge for one r would give x away), a challenge c >= n and a malformed line are answered
 * {"op":"response","status":"bad_input"} with no s, and the commitment, if any, is dropped. The
 * end of the input ends the run (the simulator stops once the firmware has consumed it). Key and
 * commitments come from an HMAC-DRBG seeded by the TRNG (node/app.h: the simulator's model repeats
 * with its --seed, so a simulated node's x and its r repeat from boot to boot). Commit and response
 * run between simulator markers (schnorr_commit, schnorr_respond). */
#include <stdio.h>
#include <string.h>

#include "node/app.h"
#include "se/backend.h"
#include "se/ec.h"

#define N 32 /* P-256 scalars */

static const se_backend *be;
static se_hmac_drbg_ctx rng;
static se_ec_curve curve;
static uint8_t x[N], r[N];
static int have_r; /* r is fresh: no challenge answered under it yet */

/* c from 2N hex digits; SE_ERR_BAD_INPUT unless exactly that and c < n. */
static se_status parse_challenge(const char *s, uint8_t c[N])
{
    const uint8_t *n = se_ec_secp256r1.n;
    if (strlen(s) != 2 * N || app_unhex(s, c, N) != 0)
        return SE_ERR_BAD_INPUT;
    return memcmp(c, n, N) < 0 ? SE_OK : SE_ERR_BAD_INPUT; /* big-endian: byte order is value order */
}

static void commit(void)
{
    uint8_t R[1 + 2 * N];
    node_marker("schnorr_commit");
    se_status st = se_ec_keygen(&curve, &rng, r, R); /* r in [1, n-1], R = r G */
    node_marker(NULL);
    have_r = st == SE_OK;
    printf("{\"op\":\"commit\",\"R\":\"");
    if (have_r)
        app_hex(R, sizeof R);
    printf("\",\"status\":\"%s\"}\n", se_status_name(st));
}

static void respond(const char *arg)
{
    uint8_t c[N], t[N], s[N];
    const uint8_t *n = se_ec_secp256r1.n;
    se_status st = have_r ? parse_challenge(arg, c) : SE_ERR_BAD_INPUT;
    node_marker("schnorr_respond");
    if (st == SE_OK)
        st = be->mod(SE_MOD_MUL, n, N, c, x, t); /* c x mod n */
    if (st == SE_OK)
        st = be->mod(SE_MOD_ADD, n, N, r, t, s); /* r + c x mod n */
    node_marker(NULL);
    se_ct_wipe(r, sizeof r); /* one challenge per commitment, answered or not */
    se_ct_wipe(t, sizeof t);
    have_r = 0;
    printf("{\"op\":\"response\"");
    if (st == SE_OK) {
        printf(",\"s\":\"");
        app_hex(s, sizeof s);
        printf("\"");
    }
    printf(",\"status\":\"%s\"}\n", se_status_name(st));
}

int main(void)
{
    uint8_t X[1 + 2 * N];
    char line[2 * N + 16];

    be = SE_FW_BACKEND;
    se_status st = app_p256_identity(be, &rng, &curve, x, X, "X");
    if (st != SE_OK)
        return 1;
    while (app_read_line(line, sizeof line) >= 0) {
        if (strcmp(line, "commit") == 0) {
            commit();
        } else if (strncmp(line, "challenge ", 10) == 0) {
            respond(line + 10);
        } else {
            respond(""); /* not a command: refused like a bad challenge, the commitment dropped */
        }
    }
    se_ct_wipe(x, sizeof x);
    se_hmac_drbg_uninstantiate(&rng);
    return 0;
}
