/* Internal interface between the EC modules: prime-curve points, scalar decoding, the ops tables. */
#ifndef SE_EC_INTERNAL_H
#define SE_EC_INTERNAL_H

#include "se/ec.h"

/* Jacobian point (X/Z^2, Y/Z^3), coordinates in the Montgomery domain; Z = 0 is infinity. */
typedef struct {
    se_bn x, y, z;
} se_ec_point;

void se_ec_double(const se_ec_curve *c, se_ec_point *r, const se_ec_point *p);
void se_ec_add(const se_ec_curve *c, se_ec_point *r, const se_ec_point *p, const se_ec_point *q);
void se_ec_point_cmov(se_ec_point *r, const se_ec_point *a, uint32_t bit);
void se_ec_mul_ct(const se_ec_curve *c, se_ec_point *r, const se_bn *k, const se_ec_point *p);
uint32_t se_ec_to_affine(const se_ec_curve *c, se_bn *x, se_bn *y, const se_ec_point *p);
se_status se_ec_decode_point(const se_ec_curve *c, se_ec_point *r, const uint8_t *pub, size_t len);
void se_ec_encode_point(const se_ec_curve *c, uint8_t *out, const se_bn *x_m, const se_bn *y_m);
se_status se_ec_decode_scalar(const se_ec_curve *c, se_bn *d, const uint8_t *priv, size_t len);
void se_ec_generator(const se_ec_curve *c, se_ec_point *g);

/* se_ec_curve_init without the order check (the built-in prime curves). */
se_status se_ecp_curve_setup(se_ec_curve *c, const uint8_t *p, size_t p_len, const uint8_t *a,
                          size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *gx,
                          size_t gx_len, const uint8_t *gy, size_t gy_len, const uint8_t *n,
                          size_t n_len, uint32_t h);
/* Fills c with sect233r1 (koblitz = 0) or sect233k1 (koblitz = 1). */
se_status se_ec2m_curve_init(se_ec_curve *c, int koblitz);

#endif
