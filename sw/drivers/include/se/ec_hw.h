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

#endif
