/* The crypto library's curve operations (se/ec.h) on the engine: ECDH, ECDSA, keys and point
 * validation keep their one implementation in sw/crypto (encodings, nonces, hash truncation),
 * while scalar multiplication and ECDSA's arithmetic run on the engine's public-key IPs. */
#ifndef SE_EC_HW_H
#define SE_EC_HW_H

#include "se/ec.h"

/* Makes curve c use the engine: prime curves (built in or given at run time) go to the pk IP,
 * which gets the curve and G's comb table now (se_drv_pk_load_curve_g; SE_ERR_BAD_PARAMS if it
 * refuses the curve), sect233r1/k1 to the gf2m IP (their ECDSA verification's u1 G + u2 Q stays
 * in software). */
se_status se_ec_use_engine(se_ec_curve *c);

/* Makes the built-in prime curve of parameters q (&se_ec_secp256r1, se_ec_builtin_params(id))
 * for the engine alone: the parameters go to the pk IP as they are, with G's comb table (as
 * se_ec_use_engine), and the curve has no software operations (a, b, gx, gy stay 0; p and n are
 * made by se_mod_set, without Montgomery constants). Firmware
 * whose curves all come from here links none of the library's software ECC (the sensor node).
 * SE_ERR_UNKNOWN_CURVE for q = NULL (the binary curves have no se_ec_params: the gf2m IP leans on
 * the library, se_ec_curve_builtin then se_ec_use_engine). */
se_status se_ec_curve_engine(se_ec_curve *c, const se_ec_params *q);

/* For a protocol controller's program that runs pk programs itself (se_drv_ctrl_sig_check): the pk
 * IP holds curve c, a prime curve computing on it, with its generator's comb table in cache entry
 * 0, and nothing of the driver's left running there. SE_ERR_NOT_SUPPORTED for a curve whose ops
 * are not the pk IP's. */
se_status se_drv_pk_hold_curve(const se_ec_curve *c);

/* The binary curves' ops on the gf2m IP (sw/drivers/gf2m_drv.c; se_ec_use_engine gives them):
 * scalar multiplication and validation on the engine, ECDSA's arithmetic in the library. The
 * prime curves' ops live beside the pk driver (sw/drivers/pk_drv.c), private to it. */
extern const se_ec_ops se_ec_gf2m_ops;

#endif
