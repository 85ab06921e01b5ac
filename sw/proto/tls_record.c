/* The record layer (RFC 5246 6.2, RFC 6347 4.1): headers for both transports, protection through
 * the epoch's record object (tls_aead.c, tls_cbc.c), the DTLS replay window, alerts, and the input
 * side: datagrams (DTLS, bad records dropped and counted) and the byte stream (TLS, bad records
 * fatal). */
#include "se/ct.h"
#include "tls_internal.h"

size_t se_tls_out_cap(const se_tls *t)
{
    return t->mtu;
}

size_t se_tls_hdr_len(const se_tls *t)
{
    return is_dtls(t) ? 13 : 5;
}

size_t se_tls_overhead(const se_tls *t, uint16_t epoch)
{
    /* (epoch 1 is written after the keys are made; tls12_cid records add the CID and the type) */
    return epoch == 0 ? 0 : t->wr.cls->overhead + se_tls_cid_extra(t, epoch);
}

void se_tls_phase(se_tls *t, const char *name)
{
    if (t->io->phase != NULL)
        t->io->phase(t->io->ctx, name);
}

void se_tls_pseudo_header(const se_tls *t, uint8_t ph[13], uint64_t seq_num, uint8_t type, size_t len)
{
    put_be(ph, seq_num, 8);
    ph[8] = type;
    put_be(ph + 9, (is_dtls(t) ? DTLS_VERSION : TLS_VERSION) << 16 | len, 4); /* version || length */
}

void se_tls_put_header(const se_tls *t, uint8_t *rec, uint8_t type, uint64_t seq_num, size_t n)
{
    size_t h = se_tls_hdr_len(t);

    rec[0] = type;
    put_be(rec + 1, is_dtls(t) ? DTLS_VERSION : TLS_VERSION, 2);
    if (is_dtls(t))
        put_be(rec + 3, seq_num, 8); /* epoch || 48-bit sequence number */
    put_be(rec + h - 2, n, 2);
}

/* The record protection of our epoch and the peer's. */
static se_status seal(se_tls *t, uint8_t type, uint64_t sn, const uint8_t *src, uint8_t *rec, size_t len,
                      size_t *n)
{
    return t->wr.cls->seal(t, &t->wr, type, sn, src, rec, len, n);
}

static se_status open_rec(se_tls *t, uint8_t type, uint64_t sn, uint8_t *body, size_t n,
                          uint8_t **pt, size_t *pt_len)
{
    *pt = body + t->rd.cls->explicit_len;
    return t->rd.cls->open(t, &t->rd, type, sn, body, n, pt_len);
}

se_status se_tls_flush(se_tls *t)
{
    size_t n = t->out_len;

    t->out_len = 0;
    if (n > 0 && t->io->send(t->io->ctx, t->out, n) != 0)
        return SE_ERR_TLS_IO;
    return SE_OK;
}

se_status se_tls_record(se_tls *t, uint8_t type, uint16_t epoch, const uint8_t *a, size_t alen,
                     const uint8_t *b, size_t blen)
{
    size_t h = se_tls_hdr_len(t), len = alen + blen, n;
    size_t need = h + len + se_tls_overhead(t, epoch);
    uint64_t seq = t->seq_out[epoch != 0];
    uint64_t sn = is_dtls(t) ? (uint64_t)epoch << 48 | seq : seq;
    uint8_t *rec, *pt;
    se_status st;

    if (need > se_tls_out_cap(t) || (is_dtls(t) && seq >= ((uint64_t)1 << 48)))
        return SE_ERR_BUFFER_TOO_SMALL;
    if (t->out_len + need > se_tls_out_cap(t) && (st = se_tls_flush(t)) != SE_OK)
        return st;
    rec = t->out + t->out_len;
    size_t cid = se_tls_cid_extra(t, epoch); /* a tls12_cid record: its CID follows the header */
    pt = rec + h + (epoch == 0 ? 0 : t->wr.cls->explicit_len) + (cid ? cid - 1 : 0);
    /* One protected part (application data, a handshake record): the record object reads it where
     * it is (no part ever lies in the output buffer); otherwise (and for a tls12_cid record, whose
     * type follows the content) the parts are gathered in place. */
    const uint8_t *src = a;
    if (epoch == 0 || blen != 0 || cid != 0) {
        src = pt;
        memmove(pt, a, alen); /* (alen > 0: a CCS, an alert, a handshake fragment or its header) */
        if (blen > 0)
            memmove(pt + alen, b, blen);
    }
    if (epoch == 0) {
        n = len;
        se_tls_put_header(t, rec, type, sn, n);
    } else if ((st = cid ? se_tls_cid_seal(t, type, sn, rec, len, &n) : seal(t, type, sn, src, rec, len, &n)) !=
               SE_OK) {
        return st;
    }
    t->out_len += h + n;
    t->seq_out[epoch != 0] = seq + 1;
    t->stats.records_out++;
    return SE_OK;
}

se_status se_tls_alert(se_tls *t, int level, int desc)
{
    uint8_t a[2] = {(uint8_t)level, (uint8_t)desc};
    se_status st = se_tls_record(t, CT_ALERT, t->epoch_out, a, 2, NULL, 0);
    return st == SE_OK ? se_tls_flush(t) : st;
}

void se_tls_wipe(se_tls *t, int keys)
{
    if (t->flags & F_PK_BUSY) { /* a failure between a begin and its end: nothing left behind */
        se_ec_cancel(t->cfg->p256);
        t->flags &= (uint8_t)~F_PK_BUSY;
    }
    se_ct_wipe(t->ecdh_priv, sizeof t->ecdh_priv);
    se_ct_wipe(t->master, sizeof t->master);
    if (keys) {
        se_tls_rec *r[2] = {&t->rd, &t->wr};
        for (unsigned i = 0; i < 2; i++) {
            if (r[i]->cls != NULL && r[i]->cls->end != NULL)
                r[i]->cls->end(t, r[i]);
            se_ct_wipe(r[i], sizeof *r[i]);
        }
    }
}

se_status se_tls_fail(se_tls *t, se_status st, int alert)
{
    if (t->state == SE_TLS_FAILED)
        return t->err;
    t->err = st;
    t->timer_on = 0;
    t->out_len = 0; /* drop whatever half-built output there was */
    if (alert >= 0) {
        t->sent_alert = (int16_t)alert;
        (void)se_tls_alert(t, 2, alert);
    }
    t->state = SE_TLS_FAILED;
    se_tls_wipe(t, 1);
    return st;
}

/* DTLS: a record that breaks no rule but is of no use, or a malformed one (dropped silently).
 * TLS: a fatal error. */
static se_status bad_record(se_tls *t, se_status st, int alert)
{
    if (is_dtls(t)) {
        t->stats.dropped_malformed++;
        return SE_OK;
    }
    return se_tls_fail(t, st, alert);
}

static se_status on_alert(se_tls *t, const uint8_t *d, size_t n)
{
    if (n != 2)
        return bad_record(t, SE_ERR_TLS_DECODE, SE_TLS_ALERT_DECODE_ERROR);
    if (d[1] == SE_TLS_ALERT_CLOSE_NOTIFY) {
        /* Answer with our close_notify (RFC 5246 7.2.1); the connection is over. */
        if (t->state == SE_TLS_ESTABLISHED)
            (void)se_tls_alert(t, 1, SE_TLS_ALERT_CLOSE_NOTIFY);
        t->timer_on = 0;
        if (t->state == SE_TLS_HANDSHAKING) {
            t->peer_alert = 0;
            return se_tls_fail(t, SE_ERR_TLS_CLOSED, -1);
        }
        t->state = SE_TLS_CLOSED;
        return SE_OK;
    }
    if (d[0] == 1) { /* warnings (no_renegotiation, user_canceled): nothing to do, a few times */
        if (++t->warnings > SE_TLS_MAX_WARNINGS)
            return se_tls_fail(t, SE_ERR_TLS_WARNINGS, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
        return SE_OK;
    }
    t->peer_alert = d[1];
    return se_tls_fail(t, SE_ERR_TLS_PEER_ALERT, -1);
}

se_status se_tls_content(se_tls *t, uint8_t type, const uint8_t *d, size_t n, int old_epoch)
{
    if (n > SE_TLS_MAX_RECORD)
        return bad_record(t, SE_ERR_TLS_TOO_LARGE, SE_TLS_ALERT_RECORD_OVERFLOW);
    if (old_epoch) /* only a retransmitted flight of the peer matters there */
        return type == CT_HANDSHAKE ? se_tls_hs_data(t, d, n, 1) : SE_OK;
    switch (type) {
    case CT_HANDSHAKE:
        return se_tls_hs_data(t, d, n, 0);
    case CT_ALERT:
        return on_alert(t, d, n);
    case CT_CCS:
        if (n != 1 || d[0] != 1)
            return bad_record(t, SE_ERR_TLS_DECODE, SE_TLS_ALERT_DECODE_ERROR);
        /* Only where the handshake expects it, between whole messages (DTLS: a CCS anywhere
         * else is a retransmission and ignored). */
        if (t->hs != (is_server(t) ? HS_S_CCS : HS_C_CCS) || (!is_dtls(t) && t->hs_got != 0)) {
            if (is_dtls(t))
                return SE_OK;
            return se_tls_fail(t, SE_ERR_TLS_UNEXPECTED, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
        }
        t->epoch_in = 1;
        if (!is_dtls(t))
            t->seq_in = 0; /* (DTLS records carry theirs) */
        t->win_any = 0;
        t->hs_busy = 0; /* a DTLS message begun in epoch 0 does not continue in epoch 1 */
        t->hs++;
        t->warnings = 0; /* progress (se_tls_hs_message, application data too) */
        return SE_OK;
    case CT_APP:
        if (t->state != SE_TLS_ESTABLISHED)
            return bad_record(t, SE_ERR_TLS_UNEXPECTED, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
        t->stats.app_bytes_in += (uint32_t)n;
        t->warnings = 0;
        if (t->io->on_data != NULL)
            t->io->on_data(t->io->ctx, d, n);
        return SE_OK;
    default:
        return bad_record(t, SE_ERR_TLS_UNEXPECTED, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
    }
}

/* ---- DTLS: one datagram, any number of records ----------------------------------------- */
/* The replay window: 64 bits in two 32-bit words, so that no 64-bit shift by a variable is
 * needed (a libgcc call on rv32). */
static int replay_seen(const se_tls *t, uint64_t seq)
{
    uint64_t d = t->win_top - seq;

    if (!t->win_any || seq > t->win_top)
        return 0;
    return d >= 64 || ((t->win_bits[d / 32] >> (d % 32)) & 1u);
}

/* Marks seq (not seen, replay_seen says) as seen. */
static void replay_mark(se_tls *t, uint64_t seq)
{
    uint32_t d;

    if (!t->win_any) {
        t->win_any = 1;
        t->win_top = seq;
        t->win_bits[0] = t->win_bits[1] = 0;
    }
    if (seq > t->win_top) {
        /* Slide the window up to seq, a bit at a time (records mostly come in order; after 64
         * bits it is empty). */
        for (d = seq - t->win_top < 64 ? (uint32_t)(seq - t->win_top) : 64; d > 0; d--) {
            t->win_bits[1] = t->win_bits[1] << 1 | t->win_bits[0] >> 31;
            t->win_bits[0] <<= 1;
        }
        t->win_top = seq;
    }
    d = (uint32_t)(t->win_top - seq); /* < 64: not seen (replay_seen), checked all the same */
    if (d < 64)
        t->win_bits[d / 32] |= 1u << (d % 32);
}

/* Where protected records are decrypted: the end of the shared buffer (tls_ctx.h). */
static uint8_t *rx(se_tls *t)
{
    return t->buf + sizeof t->buf - SE_TLS_RX_BYTES;
}

/* One record of h header bytes (13, or a tls12_cid record's 13 + CID) and an n-byte body. */
static se_status dgram_record(se_tls *t, const uint8_t *rec, size_t h, size_t n)
{
    uint8_t type = rec[0];
    uint16_t epoch = (uint16_t)be16(rec + 3);
    uint64_t seq = (uint64_t)be16(rec + 5) << 32 | (uint64_t)be16(rec + 7) << 16 | be16(rec + 9);
    const uint8_t *body;
    uint8_t *pt;
    size_t pt_len;
    se_status st;

    /* tls12_cid records only in a protected epoch; with a CID of ours negotiated, only they there. */
    if (!TLS_CID)
        h = 13; /* (a constant for the compiler: the build without CID is the code it was) */
    int cid_rec = h != 13;
    body = rec + h;
    if ((cid_rec && epoch == 0) || (!cid_rec && epoch != 0 && se_tls_cid_expected(t))) {
        t->stats.dropped_malformed++;
        return SE_OK;
    }

    if (epoch != t->epoch_in) {
        /* The peer's previous epoch: a retransmitted flight (plaintext). Anything else: drop. */
        if (epoch + 1u == t->epoch_in && epoch == 0)
            return se_tls_content(t, type, body, n, 1);
        t->stats.dropped_malformed++;
        return SE_OK;
    }
    if (replay_seen(t, seq)) {
        t->stats.dropped_replay++;
        return SE_OK;
    }
    if (epoch == 0) {
        /* Server: the ServerHello's record number follows the (second) ClientHello's, so it
         * cannot collide with the stateless HelloVerifyRequest's (RFC 6347 4.2.1). */
        if (is_server(t) && t->hs == HS_S_CH && !(t->flags & F_SEQ_SET) && seq < ((uint64_t)1 << 47))
            t->seq_out[0] = seq;
        replay_mark(t, seq);
        t->stats.records_in++;
        return se_tls_content(t, type, body, n, 0);
    }
    if (n > SE_TLS_RX_BYTES - 13) {
        t->stats.dropped_malformed++;
        return SE_OK;
    }
    memcpy(rx(t) + 13, body, n);
    st = cid_rec ? se_tls_cid_open(t, rec, (uint64_t)epoch << 48 | seq, rx(t) + 13, n, &type, &pt, &pt_len)
                 : open_rec(t, type, (uint64_t)epoch << 48 | seq, rx(t) + 13, n, &pt, &pt_len);
    if (st != SE_OK) {
        if (st == SE_ERR_BAD_TAG || !cid_rec)
            t->stats.dropped_bad_mac++;
        else
            t->stats.dropped_malformed++;
        return SE_OK;
    }
    replay_mark(t, seq);
    t->stats.records_in++;
#ifndef SE_TLS_NO_SERVER
    t->rec_in = (uint64_t)epoch << 48 | seq;
#endif
    return se_tls_content(t, type, pt, pt_len, 0);
}

static se_status dgram_in(se_tls *t, const uint8_t *d, size_t len)
{
    while (len > 0 && t->state <= SE_TLS_ESTABLISHED) {
        size_t n;
        se_status st;

        size_t h = se_tls_cid_header(t, d, len); /* a tls12_cid record's header is longer */
        if (h == 0)
            h = 13;
        if (len < h || d[1] != 0xFE || (n = be16(d + h - 2)) > len - h) {
            t->stats.dropped_malformed++; /* the rest of the datagram cannot be framed */
            break;
        }
        st = dgram_record(t, d, h, n);
        if (st != SE_OK)
            return st;
        d += h + n;
        len -= h + n;
    }
    return SE_OK;
}

/* ---- TLS: the byte stream ----------------------------------------------------------------
 * Records are taken apart as their bytes arrive: plaintext handshake data goes straight to the
 * reassembly, a plaintext alert or ChangeCipherSpec (2 bytes at most) after the header in
 * rhdr, a protected record into rx until it is whole. */
static se_status stream_header(se_tls *t)
{
    uint8_t type = t->rhdr[0];
    size_t n = be16(t->rhdr + 3);

    if (t->rhdr[1] != 3)
        return se_tls_fail(t, SE_ERR_TLS_PROTOCOL_VERSION, SE_TLS_ALERT_PROTOCOL_VERSION);
    if (t->epoch_in != 0 ? n > SE_TLS_RX_BYTES - 5 : n > SE_TLS_MAX_RECORD)
        return se_tls_fail(t, SE_ERR_TLS_TOO_LARGE, SE_TLS_ALERT_RECORD_OVERFLOW);
    if (t->epoch_in != 0)
        return SE_OK;
    if (n == 0 || (type != CT_HANDSHAKE && type != CT_ALERT && type != CT_CCS))
        return se_tls_fail(t, SE_ERR_TLS_UNEXPECTED, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
    if (type != CT_HANDSHAKE && n > 2)
        return se_tls_fail(t, SE_ERR_TLS_DECODE, SE_TLS_ALERT_DECODE_ERROR);
    return SE_OK;
}

static se_status stream_in(se_tls *t, const uint8_t *d, size_t len)
{
    while (len > 0 && t->state <= SE_TLS_ESTABLISHED) {
        size_t n = be16(t->rhdr + 3), k;
        uint8_t type = t->rhdr[0];
        se_status st = SE_OK;

        if (t->rx_fill < 5) {
            t->rhdr[t->rx_fill++] = *d++;
            len--;
            if (t->rx_fill == 5 && (st = stream_header(t)) != SE_OK)
                return st;
            continue;
        }
        k = 5 + n - t->rx_fill < len ? 5 + n - t->rx_fill : len;
        if (t->epoch_in != 0)
            memcpy(rx(t) + t->rx_fill, d, k);
        else if (type == CT_HANDSHAKE)
            st = se_tls_hs_data(t, d, k, 0);
        else
            memcpy(t->rhdr + t->rx_fill, d, k);
        t->rx_fill += k;
        d += k;
        len -= k;
        if (st != SE_OK)
            return st;
        if (t->rx_fill == 5 + n) { /* the record is complete */
            uint64_t seq = t->seq_in++;
            uint8_t *pt = rx(t) + 5;
            size_t pt_len = n;

            t->rx_fill = 0;
            t->stats.records_in++;
            if (t->epoch_in == 0) {
                if (type != CT_HANDSHAKE && (st = se_tls_content(t, type, t->rhdr + 5, n, 0)) != SE_OK)
                    return st;
                continue;
            }
            if (open_rec(t, type, seq, rx(t) + 5, n, &pt, &pt_len) != SE_OK)
                return se_tls_fail(t, SE_ERR_TLS_BAD_RECORD_MAC, SE_TLS_ALERT_BAD_RECORD_MAC);
#ifndef SE_TLS_NO_SERVER
            t->rec_in = (uint64_t)t->epoch_in << 48 | seq;
#endif
            if ((st = se_tls_content(t, type, pt, pt_len, 0)) != SE_OK)
                return st;
        }
    }
    return SE_OK;
}

se_status se_tls_input(se_tls *t, const uint8_t *buf, size_t len)
{
    se_status st;

    if (t->state == SE_TLS_FAILED)
        return t->err;
    if (t->state == SE_TLS_CLOSED)
        return SE_ERR_TLS_CLOSED;
    if (buf == NULL)
        return len == 0 ? SE_OK : SE_ERR_BAD_INPUT;
    st = is_dtls(t) ? dgram_in(t, buf, len) : stream_in(t, buf, len);
    /* A failure inside a callback (on_data writing back) also reaches the caller. */
    return st == SE_OK && t->state == SE_TLS_FAILED ? t->err : st;
}

se_status se_tls_write(se_tls *t, const uint8_t *buf, size_t len)
{
    size_t room = se_tls_out_cap(t) - se_tls_hdr_len(t) - se_tls_overhead(t, 1);
    se_status st = SE_OK;

    if (t->state != SE_TLS_ESTABLISHED)
        return t->state == SE_TLS_FAILED ? t->err
             : t->state == SE_TLS_CLOSED ? SE_ERR_TLS_CLOSED : SE_ERR_TLS_STATE;
    if (room > SE_TLS_MAX_RECORD)
        room = SE_TLS_MAX_RECORD;
    do {
        size_t k = len < room ? len : room;
        st = se_tls_record(t, CT_APP, t->epoch_out, buf, k, NULL, 0);
        if (st == SE_OK && is_dtls(t))
            st = se_tls_flush(t); /* one record per datagram */
        buf += k;
        len -= k;
        t->stats.app_bytes_out += (uint32_t)k;
    } while (st == SE_OK && len > 0);
    if (st == SE_OK)
        st = se_tls_flush(t);
    return st == SE_OK ? SE_OK : se_tls_fail(t, st, -1);
}

se_status se_tls_close(se_tls *t)
{
    se_status st = SE_OK;

    if (t->state == SE_TLS_FAILED)
        return t->err;
    if (t->state == SE_TLS_CLOSED)
        return SE_OK;
    if (t->state == SE_TLS_ESTABLISHED || t->hs != HS_C_START)
        st = se_tls_alert(t, 1, SE_TLS_ALERT_CLOSE_NOTIFY);
    t->state = SE_TLS_CLOSED;
    t->timer_on = 0;
    se_tls_wipe(t, 1);
    return st;
}
