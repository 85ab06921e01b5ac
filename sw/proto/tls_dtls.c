/* Handshake transport for both protocols: messages reassembled from DTLS fragments (out of
 * order, duplicated) or from the TLS byte stream; our flights kept, fragmented to the MTU and
 * resent on the RFC 6347 4.2.4 timer or when the peer repeats its previous flight. (The server's
 * stateless HelloVerifyRequest cookies are in dtls_server.c.) */
#include "tls_internal.h"

static size_t hs_hdr(const se_tls *t)
{
    return is_dtls(t) ? 12 : 4;
}

/* ---- our flight ------------------------------------------------------------------------- */
void se_tls_flight_reset(se_tls *t)
{
    t->flight_len = 0;
}

tls_wr se_tls_msg_begin(se_tls *t)
{
    size_t at = t->flight_len + 3 + hs_hdr(t);
    tls_wr w = {t->flight, 0, 0, 0};

    if (at <= sizeof t->flight) {
        w.p = t->flight + at;
        w.cap = sizeof t->flight - at;
    } else {
        w.bad = 1;
    }
    return w;
}

se_status se_tls_msg_end(se_tls *t, uint8_t type, tls_wr *w)
{
    uint8_t *e = t->flight + t->flight_len, *h = e + 3;
    size_t hl = hs_hdr(t);

    if (w->bad)
        return SE_ERR_BUFFER_TOO_SMALL;
    e[0] = CT_HANDSHAKE;
    put_be(e + 1, hl + w->len, 2);
    h[0] = type;
    put_be(h + 1, w->len, 3);
    if (is_dtls(t)) {
        put_be(h + 4, t->seq_hs_out++, 2);
        put_be(h + 6, w->len, 6);       /* fragment_offset 0, fragment_length: the whole message */
    }
    se_sha256_update(&t->transcript, h, hl + w->len);
    t->flight_len += 3 + hl + w->len;
    return SE_OK;
}

se_status se_tls_flight_ccs(se_tls *t)
{
    static const uint8_t ccs[4] = {CT_CCS, 0, 1, 1};

    if (sizeof t->flight - t->flight_len < sizeof ccs)
        return SE_ERR_BUFFER_TOO_SMALL;
    memcpy(t->flight + t->flight_len, ccs, sizeof ccs);
    t->flight_len += sizeof ccs;
    return SE_OK;
}

/* Sends every entry of the flight: epoch 0 up to the ChangeCipherSpec, 1 after it. DTLS cuts
 * each message into fragments that fit the datagram; TLS into records. */
static se_status flight_emit(se_tls *t)
{
    size_t off = 0, cap = se_tls_out_cap(t), hl = se_tls_hdr_len(t);
    uint16_t epoch = 0;
    se_status st = SE_OK;

    while (st == SE_OK && off < t->flight_len) {
        const uint8_t *m = t->flight + off + 3;
        size_t n = be16(t->flight + off + 1), ovh = se_tls_overhead(t, epoch);
        uint8_t type = t->flight[off];

        off += 3 + n;
        if (type == CT_CCS) {
            st = se_tls_record(t, CT_CCS, epoch, m, 1, NULL, 0);
            epoch = 1;
        } else if (!is_dtls(t)) {
            for (size_t k = 0, room = cap - hl - ovh; st == SE_OK && k < n; k += room)
                st = se_tls_record(t, CT_HANDSHAKE, epoch, m + k, n - k < room ? n - k : room, NULL, 0);
        } else {
            const uint8_t *body = m + 12;
            size_t blen = n - 12, fo = 0;
            do {
                uint8_t fh[12];
                size_t room, left = blen - fo;
                /* Start a new datagram rather than send a fragment of a few bytes. */
                if (t->out_len + hl + ovh + 12 + (left < 32 ? left : 32) > cap)
                    st = se_tls_flush(t);
                room = cap - t->out_len - hl - ovh - 12;
                if (st != SE_OK)
                    break;
                room = left < room ? left : room;
                memcpy(fh, m, 6); /* type, length, message_seq */
                put_be(fh + 6, (uint64_t)fo << 24 | room, 6); /* fragment_offset, fragment_length */
                st = se_tls_record(t, CT_HANDSHAKE, epoch, fh, 12, body + fo, room);
                fo += room;
            } while (st == SE_OK && fo < blen);
        }
    }
    return st == SE_OK ? se_tls_flush(t) : st;
}

static void timer_arm(se_tls *t)
{
    t->timer_on = 1;
    t->timer_start = t->io->now_ms(t->io->ctx);
    t->timer_ms = t->cfg->retransmit_ms ? t->cfg->retransmit_ms : 1000;
    t->retransmits = 0;
}

se_status se_tls_flight_send(se_tls *t, int arm)
{
    se_status st = flight_emit(t);

    t->flight_mark = t->seq_hs_in;
    if (st == SE_OK && arm && is_dtls(t))
        timer_arm(t);
    return st;
}

static se_status resend(se_tls *t)
{
    se_status st;

    t->stats.retransmits++;
    st = flight_emit(t);
    return st == SE_OK ? SE_OK : se_tls_fail(t, st, -1);
}

uint32_t se_tls_timeout_ms(const se_tls *t)
{
    uint32_t elapsed;

    if (!t->timer_on || t->state != SE_TLS_HANDSHAKING)
        return UINT32_MAX;
    elapsed = t->io->now_ms(t->io->ctx) - t->timer_start;
    return elapsed >= t->timer_ms ? 0 : t->timer_ms - elapsed;
}

se_status se_tls_timer(se_tls *t)
{
    unsigned max = t->cfg->max_retransmits ? t->cfg->max_retransmits : 6;

    if (t->state == SE_TLS_FAILED)
        return t->err;
    if (se_tls_timeout_ms(t) != 0)
        return SE_OK;
    if (t->retransmits >= max)
        return se_tls_fail(t, SE_ERR_TLS_TIMEOUT, -1);
    t->retransmits++;
    t->timer_ms = t->timer_ms > 30000 ? 60000 : 2 * t->timer_ms;
    t->timer_start = t->io->now_ms(t->io->ctx);
    return resend(t);
}

/* ---- reassembly ------------------------------------------------------------------------- */
/* Marks bytes [from, to) of the message being reassembled as received in map (bit i & 7 of
 * byte i >> 3) and returns how many of them are new: a map byte at a time, not a bit. */
static uint32_t mark_received(uint8_t *map, uint32_t from, uint32_t to)
{
    uint32_t got = 0;
    for (uint32_t b = from >> 3; from < to && b <= (to - 1) >> 3; b++) {
        uint32_t lo = b * 8 < from ? from - b * 8 : 0, hi = b * 8 + 8 > to ? to - b * 8 : 8;
        uint32_t bits = ((1u << hi) - 1u) & ~((1u << lo) - 1u); /* this map byte's part of the range */
        uint32_t m = bits & ~(uint32_t)map[b];
        m = m - ((m >> 1) & 0x55u); /* the bits newly set, counted */
        m = (m & 0x33u) + ((m >> 2) & 0x33u);
        got += (m + (m >> 4)) & 0x0fu;
        map[b] |= (uint8_t)bits;
    }
    return got;
}

/* One DTLS fragment (header h, 12 bytes, already checked to frame within its record). */
static se_status dtls_fragment(se_tls *t, const uint8_t *h, const uint8_t *frag, int old)
{
    uint8_t type = h[0];
    uint32_t mlen = be24(h + 1), mseq = be16(h + 4), off = be24(h + 6), flen = be24(h + 9);

    /* The server's first ClientHello (the one with the cookie) sets both message_seqs. */
    if (is_server(t) && t->hs == HS_S_CH && !(t->flags & F_SEQ_SET) && !old && type == HT_CLIENT_HELLO) {
        t->seq_hs_in = (uint16_t)mseq;
        t->seq_hs_out = (uint16_t)mseq;
        t->flags |= F_SEQ_SET;
    }
    /* A renegotiating ClientHello in the current epoch starts the peer's message_seq again at 0
     * (RFC 6347 4.2.2): answered on its first fragment, whatever its number, not taken for an
     * old retransmission. */
    if (is_server(t) && t->state == SE_TLS_ESTABLISHED && type == HT_CLIENT_HELLO && !old)
        return off == 0 ? se_tls_hs_renegotiation(t) : SE_OK;
    if (mseq < t->seq_hs_in) {
        /* The peer repeats the flight before our last one: ours was lost, resend it (once per
         * repetition: on the first fragment of that flight's last message). */
        if (mseq + 1u == t->flight_mark && off == 0 && t->flight_len > 0)
            return resend(t);
        return SE_OK;
    }
    if (old || mseq > t->seq_hs_in)
        return SE_OK; /* a later message: dropped, the peer's retransmission brings it again */
    if (mlen > SE_TLS_MAX_HANDSHAKE)
        return se_tls_fail(t, SE_ERR_TLS_TOO_LARGE, SE_TLS_ALERT_DECODE_ERROR);
    if (!t->hs_busy) {
        t->hs_busy = 1;
        t->hs_type = type;
        t->hs_len = mlen;
        t->hs_got = 0;
        memset(t->hs_map, 0, (mlen + 7) / 8);
    } else if (type != t->hs_type || mlen != t->hs_len) {
        t->stats.dropped_malformed++;
        return SE_OK;
    }
    memmove(t->buf + SE_TLS_HS_HEADER + off, frag, flen); /* (may overlap rx after the handshake) */
    t->hs_got += mark_received(t->hs_map, off, off + flen);
    if (t->hs_got < t->hs_len)
        return SE_OK;
    /* Complete: the header as one unfragmented message (what the transcript hashes). */
    t->hs_busy = 0;
    memcpy(t->buf, h, 6);
    put_be(t->buf + 6, mlen, 6); /* fragment_offset 0, fragment_length mlen */
    t->seq_hs_in++;
    t->timer_on = 0; /* the peer's next flight has begun: ours arrived */
    return se_tls_hs_message(t);
}

/* TLS: messages (4-byte header) spread over and packed into records. */
static se_status stream_hs(se_tls *t, const uint8_t *d, size_t n)
{
    uint8_t *h = t->buf + SE_TLS_HS_HEADER - 4;

    for (;;) {
        size_t k;
        if (t->hs_got >= 4 && t->hs_got == 4 + t->hs_len) {
            se_status st;
            t->hs_type = h[0];
            t->hs_got = 0;
            st = se_tls_hs_message(t);
            if (st != SE_OK || t->state > SE_TLS_ESTABLISHED)
                return st;
            continue;
        }
        if (n == 0)
            return SE_OK;
        if (t->hs_got < 4) {
            h[t->hs_got++] = *d++;
            n--;
            t->hs_len = be24(h + 1);
            if (t->hs_got == 4 && t->hs_len > SE_TLS_MAX_HANDSHAKE)
                return se_tls_fail(t, SE_ERR_TLS_TOO_LARGE, SE_TLS_ALERT_DECODE_ERROR);
            continue;
        }
        k = 4 + t->hs_len - t->hs_got;
        k = k < n ? k : n;
        memmove(h + t->hs_got, d, k);
        t->hs_got += (uint32_t)k;
        d += k;
        n -= k;
    }
}

se_status se_tls_hs_data(se_tls *t, const uint8_t *d, size_t n, int old_epoch)
{
    if (!is_dtls(t))
        return stream_hs(t, d, n);
    while (n > 0) {
        uint32_t mlen, off, flen;
        se_status st;

        if (n < 12) {
            t->stats.dropped_malformed++;
            return SE_OK;
        }
        mlen = be24(d + 1);
        off = be24(d + 6);
        flen = be24(d + 9);
        if (flen > n - 12 || off > mlen || flen > mlen - off) {
            t->stats.dropped_malformed++;
            return SE_OK;
        }
        st = dtls_fragment(t, d, d + 12, old_epoch);
        if (st != SE_OK || t->state > SE_TLS_ESTABLISHED)
            return st;
        d += 12 + flen;
        n -= 12 + flen;
    }
    return SE_OK;
}
