# MODINV_P / MODINV_N: RX = K^-1 mod m (plain; 0 for K = 0), by Fermat (lib.s: inv_p, inv_n)
.entry MODINV_P
    NEED FIELD
    MUL T3, K, RRP
    CALL inv_p
    LDI T6, 1
    MUL RX, T3, T6
    END

.entry MODINV_N
    NEED ORDER
    MUL.n T3, K, RRN
    CALL inv_n
    LDI T6, 1
    MUL.n RX, T3, T6
    END
