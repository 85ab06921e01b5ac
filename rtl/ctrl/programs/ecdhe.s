# ECDHE: the client's half of TLS's ECDHE key exchange over P-256 (RFC 8422), on the pk IP: its
# public key k G and the premaster secret, the x coordinate of k Q (RFC 8422 5.10). k lies at K_AT and
# the premaster goes to PMS_AT, both in the window's secret top, which the bus writes but never reads.
# pk must hold P-256 with G's table in cache entry 0 (ENGINE otherwise); the engine clears pk's
# operand slots after the program, so neither k nor k Q stays there.

# ECDHE: r2 the peer's point x || y (64 bytes), r3 where k G goes (x || y, 64 bytes), both below the
# secret top (BAD_INPUT otherwise). A k that is 0 modulo n is BAD_INPUT; a peer's point off the curve
# (or with x = 0, which pk refuses) is INVALID_POINT.
.entry ECDHE
    LDI n, 64
    MOV r13, r2
    CALL public_n
    MOV r13, r3
    CALL public_n
    LDI r1, K_AT
    LDI r5, PMS_AT
    LDI r6, 32
    PKW PK_SLOT_K, r1, r6
    PKRUN pks, PK_PROG_ECSM_COMB    # k G, on G's table (entry 0)
    J.z ecdhe_pub
    CMPI pks, PK_ST_INFINITY
    J.z bad_input
    ERR ENGINE
ecdhe_pub:
    PKR PK_SLOT_RX, r3
    ADDI t, r3, 32
    PKR PK_SLOT_RY, t
    PKW PK_SLOT_QX, r2, r6
    ADDI t, r2, 32
    PKW PK_SLOT_QY, t, r6
    PKW PK_SLOT_K, r1, r6
    PKRUN pks, PK_PROG_ECSM         # k Q, Q checked first
    J.z ecdhe_shared
    CMPI pks, PK_ST_BAD_POINT
    J.z invalid_point
    CMPI pks, PK_ST_INFINITY
    J.z invalid_point
    ERR ENGINE
ecdhe_shared:
    PKR PK_SLOT_RX, r5
    END
invalid_point:
    ERR INVALID_POINT
