/* ECMQV key agreement on the node (seed 001's first application; SEC 1 section 6.2, NIST SP 800-56A
 * section 5.7.2.3) on P-256, on the backend fixed at build time (SE_FW_BACKEND: the library for
 * sw-*, the engine for sw+hw-*). The node holds a static key pair; each agreement takes the peer's
 * static and ephemeral public keys from the UART, makes its own ephemeral pair and prints the
 * shared secret, which the peer (tests/node/test_ecmqv.py, a model written from SEC 1) computes
 * too. A line each way:
 *   node:  {"op":"identity","Q":hex,"status":"ok"}      once: the static public key, 65 bytes
 *   host:  peer <static 130 hex digits> <ephemeral 130 hex digits>
 *   node:  {"op":"mqv","Qe":hex,"Z":hex,"status":"ok"}  its ephemeral key and the shared x(P)
 * A malformed line answers bad_input, a peer key that is not a valid point invalid_point, and
 * Q_e' + avf(Q_e') Q_s' = O infinity; then no Z. The computation, with avf(Q) = (x mod 2^128)
 * + 2^128 for P-256's 256-bit n and cofactor 1:
 *   s = (d_e + avf(Q_e) d_s) mod n,  P = s (Q_e' + avf(Q_e') Q_s'),  Z = x(P).
 * s is secret and its multiplication constant time (se_ec_mul); the sum of the peer's public points
 * is public and runs on the backend's modular arithmetic mod p. It runs between simulator markers
 * (ecmqv: the agreement, the ephemeral key pair included). */
#include <stdio.h>
#include <string.h>

#include "node/app.h"
#include "se/backend.h"
#include "se/ec.h"

#define F 32                /* P-256 field and scalar bytes */
#define PT (1 + 2 * F)      /* an uncompressed point */

static const se_backend *be;
static se_hmac_drbg_ctx rng;
static se_ec_curve curve;
static uint8_t ds[F], Qs[PT];

/* avf(Q) of an encoded point: the low 128 bits of x with bit 128 set, as a 32-byte scalar. */
static void avf(const uint8_t q[PT], uint8_t out[F])
{
    memset(out, 0, F);
    out[F / 2 - 1] = 1;
    memcpy(out + F / 2, q + 1 + F / 2, F / 2);
}

/* r = q1 + q2 for two valid public points, affine, by the backend's arithmetic mod p (public
 * data: the branches are on public values). SE_ERR_INFINITY when the sum is the point at infinity. */
static se_status add_points(const uint8_t q1[PT], const uint8_t q2[PT], uint8_t r[PT])
{
    const uint8_t *p = se_ec_secp256r1.p, *a = se_ec_secp256r1.a;
    const uint8_t *x1 = q1 + 1, *y1 = q1 + 1 + F, *x2 = q2 + 1, *y2 = q2 + 1 + F;
    uint8_t num[F], den[F], lam[F], t[F];
    se_status st;

    if (memcmp(x1, x2, F) != 0) { /* lambda = (y2 - y1) / (x2 - x1) */
        st = be->mod(SE_MOD_SUB, p, F, y2, y1, num);
        if (st == SE_OK)
            st = be->mod(SE_MOD_SUB, p, F, x2, x1, den);
    } else if (memcmp(y1, y2, F) == 0) { /* y1 != 0: P-256's order is odd, no point has y = 0 */
        st = be->mod(SE_MOD_MUL, p, F, x1, x1, t); /* doubling: lambda = (3 x1^2 + a) / (2 y1) */
        if (st == SE_OK)
            st = be->mod(SE_MOD_ADD, p, F, t, t, num);
        if (st == SE_OK)
            st = be->mod(SE_MOD_ADD, p, F, num, t, num);
        if (st == SE_OK)
            st = be->mod(SE_MOD_ADD, p, F, num, a, num);
        if (st == SE_OK)
            st = be->mod(SE_MOD_ADD, p, F, y1, y1, den);
    } else {
        return SE_ERR_INFINITY; /* q2 = -q1 */
    }
    if (st == SE_OK)
        st = be->mod(SE_MOD_INV, p, F, den, den, t);
    if (st == SE_OK)
        st = be->mod(SE_MOD_MUL, p, F, num, t, lam);
    if (st == SE_OK) /* x3 = lambda^2 - x1 - x2 */
        st = be->mod(SE_MOD_MUL, p, F, lam, lam, t);
    if (st == SE_OK)
        st = be->mod(SE_MOD_SUB, p, F, t, x1, t);
    if (st == SE_OK)
        st = be->mod(SE_MOD_SUB, p, F, t, x2, r + 1);
    if (st == SE_OK) /* y3 = lambda (x1 - x3) - y1 */
        st = be->mod(SE_MOD_SUB, p, F, x1, r + 1, t);
    if (st == SE_OK)
        st = be->mod(SE_MOD_MUL, p, F, lam, t, t);
    if (st == SE_OK)
        st = be->mod(SE_MOD_SUB, p, F, t, y1, r + 1 + F);
    r[0] = 4;
    return st;
}

/* One agreement with the peer's static Qs2 and ephemeral Qe2 (validated here): Qe and Z out. */
static se_status agree(const uint8_t Qs2[PT], const uint8_t Qe2[PT], uint8_t Qe[PT], uint8_t Z[F])
{
    uint8_t de[F], e[F], s[F], t[F], U[PT], T[PT], P[PT];
    se_status st = se_ec_validate_public(&curve, Qs2, PT);
    if (st == SE_OK)
        st = se_ec_validate_public(&curve, Qe2, PT);
    if (st == SE_OK)
        st = se_ec_keygen(&curve, &rng, de, Qe); /* the ephemeral pair */
    if (st == SE_OK) { /* s = (d_e + avf(Q_e) d_s) mod n */
        avf(Qe, e);
        st = be->mod(SE_MOD_MUL, se_ec_secp256r1.n, F, e, ds, t);
    }
    if (st == SE_OK)
        st = be->mod(SE_MOD_ADD, se_ec_secp256r1.n, F, de, t, s);
    avf(Qe2, e);
    if (st == SE_OK) /* U = avf(Q_e') Q_s', T = Q_e' + U: public */
        st = se_ec_mul(&curve, e, F, Qs2, PT, U);
    if (st == SE_OK)
        st = add_points(Qe2, U, T);
    if (st == SE_OK) /* P = s T (h = 1); s = 0 or P = O are refused by se_ec_mul */
        st = se_ec_mul(&curve, s, F, T, PT, P);
    if (st == SE_OK)
        memcpy(Z, P + 1, F);
    se_ct_wipe(de, sizeof de);
    se_ct_wipe(s, sizeof s);
    se_ct_wipe(t, sizeof t);
    se_ct_wipe(P, sizeof P);
    return st;
}

int main(void)
{
    uint8_t Qs2[PT], Qe2[PT], Qe[PT], Z[F];
    char line[8 + 4 * PT + 8];

    be = SE_FW_BACKEND;
    se_status st = app_p256_identity(be, &rng, &curve, ds, Qs, "Q");
    if (st != SE_OK)
        return 1;
    int n;
    while ((n = app_read_line(line, sizeof line)) >= 0) {
        st = SE_ERR_BAD_INPUT; /* "peer " <static> " " <ephemeral> */
        if (n == 5 + 2 * PT + 1 + 2 * PT && memcmp(line, "peer ", 5) == 0 && line[5 + 2 * PT] == ' ' &&
            app_unhex(line + 5, Qs2, PT) == 0 && app_unhex(line + 6 + 2 * PT, Qe2, PT) == 0) {
            node_marker("ecmqv");
            st = agree(Qs2, Qe2, Qe, Z);
            node_marker(NULL);
        }
        printf("{\"op\":\"mqv\"");
        if (st == SE_OK) {
            printf(",\"Qe\":\"");
            app_hex(Qe, sizeof Qe);
            printf("\",\"Z\":\"");
            app_hex(Z, sizeof Z);
            printf("\"");
        }
        printf(",\"status\":\"%s\"}\n", se_status_name(st));
        se_ct_wipe(Z, sizeof Z);
    }
    se_ct_wipe(ds, sizeof ds);
    se_hmac_drbg_uninstantiate(&rng);
    return 0;
}
