# The client handshake as one machine (RFC 6347 4.1, 4.2): HANDSHAKE starts it and frames the
# ClientHello as a record; HS_RECORD takes each record of the server's the caller received, walks its
# handshake fragments (RFC 6347 4.2.2, 4.2.3), reassembles the messages, and runs each one's program
# in the order the client expects them, as the software client does (sw/proto/tls_dtls.c
# dtls_fragment, tls_hs.c se_tls_hs_message, tls_record.c's ChangeCipherSpec). What the client
# answers, the second ClientHello or its flight, comes out as records of epoch 0, a datagram at the
# configured place, with the client's Finished beside it (HS_FIN) for the caller to seal in epoch 1
# (the AES IP's SEAL, with the key KEYS put in the slot); the caller opens the server's epoch-1
# records the same way. The caller demultiplexes the datagram's records, keeps the timers and
# resends; alerts and application data are its own.
#
# A program that ends with a refusal leaves HS_ST at ST_FAILED: no record is taken after it until
# the next HANDSHAKE. The secrets it may have left in the secret top (a premaster, a master secret)
# stay there, unread, until WIPE or the next handshake's.

.equ ST_IDLE 0
.equ ST_SH 1                        # after a ClientHello: HelloVerifyRequest or ServerHello
.equ ST_CERT 2
.equ ST_SKE 3
.equ ST_SHD 4                       # CertificateRequest (once) or ServerHelloDone
.equ ST_CCS 5                       # the flight sent: the server's ChangeCipherSpec
.equ ST_FIN 6                       # the server's Finished, in epoch 1
.equ ST_DONE 7
.equ ST_FAILED 8

# HANDSHAKE's configuration in the handshake's state (HS_CFG), 2 bytes each
.equ C_ANC 0                        # the trust anchors' entries (CHAIN_CHECK's r3, r4)
.equ C_AEND 2
.equ C_NOW 4                        # now, 14 digits
.equ C_NAME 6                       # the server name
.equ C_NEND 8
.equ C_FLAGS 10                     # bit 0: check the name; bit 1: cached-certificate mode
.equ C_CH 12                        # the client's chain: certificate_list entries
.equ C_CHE 14
.equ C_SC 16                        # the AES key slots for the client's and the server's write keys
.equ C_SS 18
.equ C_RB 20                        # the reassembly buffer: a message's header and body
.equ C_RBN 22                       # its bytes
.equ C_OUT 24                       # where the datagram out goes

.equ REC_HEAD 13                    # a DTLS record's header (RFC 6347 4.1)
.equ HS_HEAD 12                     # a DTLS handshake message's header (RFC 6347 4.2.2)
.equ OUT_MAX 256                    # the datagram out's place: at least a ClientHello's record
.equ CT_CCS 20
.equ CT_HANDSHAKE 22

unexpected_message:
    ERR UNEXPECTED_MESSAGE

# HANDSHAKE: r1, r2 the trust anchors (CHAIN_CHECK's entries); r3 now (14 digits); r4, r5 the server
# name; r6 bit 0: check the name, bit 1: cached-certificate mode; r7, r8 the client's chain (entries;
# none: r7 = r8); r9, r10 the AES key slots for the client's and the server's write keys; r11, r12
# the reassembly buffer and its bytes (a message's 12-byte header and body: the server's longest);
# r13 where the datagram out goes (OUT_MAX bytes, or a flight with the chain if more: cfg_check).
# Every span below CHAIN_TOP, the buffer's and the datagram's apart from the anchors, now,
# the name and the chain; the slots 0..3 and apart (BAD_INPUT otherwise, the state as it was).
# A new handshake: the state reset (the certificate cache kept), the first ClientHello in a record;
# OUT MESSAGE: that datagram.
.entry HANDSHAKE
    LDI t, FRAME                    # the configuration, checked in CHAIN_CHECK's frame first
    STH t, r1, C_ANC
    STH t, r2, C_AEND
    STH t, r3, C_NOW
    STH t, r4, C_NAME
    STH t, r5, C_NEND
    STH t, r6, C_FLAGS
    STH t, r7, C_CH
    STH t, r8, C_CHE
    STH t, r9, C_SC
    STH t, r10, C_SS
    STH t, r11, C_RB
    STH t, r12, C_RBN
    STH t, r13, C_OUT
    LDI r15, FRAME
    CALL cfg_check
    LDI t, FRAME                    # the configuration kept, the state reset
    LDI r1, HS_AT + HS_CFG
    LDI r2, 26
    COPY r1, t, r2
    LDI t, HS_AT
    LDI r1, ST_FAILED
    STB t, r1, HS_ST
    LDI r1, 0
    STH t, r1, HS_NIN
    STH t, r1, HS_WSEQ
    STB t, r1, HS_RON
    STB t, r1, HS_SUITE
    STB t, r1, HS_CACHED
    STH t, r1, HS_RN
    STH t, r1, HS_RG
    LDI r2, 0
    CALL hello_record
    LDI t, HS_AT
    LDI r1, ST_SH
    STB t, r1, HS_ST
    J hs_out

# cfg_check: the configuration at r15 (HANDSHAKE's registers in the frame, or HS_CFG, which the bus
# may have written since): the flags, the slots 0..3 and apart, a buffer of a header and more, each
# span in order and below CHAIN_TOP, the buffer's and the datagram's apart from the anchors, now, the
# name and the chain; the datagram's bytes: 256, or a flight with the chain (13 + the chain's bytes +
# FL_MAX) if more. BAD_INPUT otherwise. r12 = the datagram's bytes; r1..r14, t change.
cfg_check:
    LDH r1, r15, C_FLAGS
    CMPI r1, 4
    J.nc bad_input
    LDH r1, r15, C_SC
    LDH r2, r15, C_SS
    CMPI r1, 4
    J.nc bad_input
    CMPI r2, 4
    J.nc bad_input
    CMP r1, r2
    J.z bad_input
    LDI r1, 0                       # the anchors, now and the name as CHAIN_CHECK takes them
    LDI r2, 0
    LDH r3, r15, C_ANC
    LDH r4, r15, C_AEND
    LDH r5, r15, C_NOW
    LDH r6, r15, C_NAME
    LDH r7, r15, C_NEND
    CALL chain_inputs
    LDH r13, r15, C_CH
    LDH r14, r15, C_CHE
    CALL below_top
    LDH r12, r15, C_RBN
    CMPI r12, HS_HEAD + 1
    J.c bad_input
    LDH r13, r15, C_RB              # the buffer
    ADD r14, r13, r12
    J.c bad_input
    CALL below_top
    CALL apart_inputs
    LDH r12, r15, C_CHE             # the datagram out
    LDH r1, r15, C_CH
    SUB r12, r12, r1
    ADDI r12, r12, REC_HEAD + FL_MAX
    CMPI r12, OUT_MAX
    J.nc cfg_out
    LDI r12, OUT_MAX
cfg_out:
    LDH r13, r15, C_OUT
    ADD r14, r13, r12
    J.c bad_input
    CALL below_top
    CALL apart_inputs
    RET

# below_top: r13 <= r14 <= CHAIN_TOP (BAD_INPUT otherwise).
below_top:
    CMP r14, r13
    J.c bad_input
    CMPI r14, CHAIN_TOP + 1
    J.nc bad_input
    RET

# apart_inputs: [r13, r14) apart from the anchors, now, the name and the chain of the configuration at
# r15 (BAD_INPUT otherwise). r1, r2 change.
apart_inputs:
    LDH r1, r15, C_ANC
    LDH r2, r15, C_AEND
    CALL apart
    LDH r1, r15, C_NOW
    ADDI r2, r1, 14
    CALL apart
    LDH r1, r15, C_NAME
    LDH r2, r15, C_NEND
    CALL apart
    LDH r1, r15, C_CH
    LDH r2, r15, C_CHE
    CALL apart
    RET

# apart: [r13, r14) and [r1, r2) do not overlap (an empty one overlaps nothing); BAD_INPUT otherwise.
apart:
    CMP r1, r2
    J.z apart_ok
    CMP r13, r14
    J.z apart_ok
    CMP r14, r1                     # it ends before the other begins,
    J.be apart_ok
    CMP r2, r13                     # or the other ends before it begins
    J.a bad_input
apart_ok:
    RET

# hello_record: a ClientHello (r2 0: the first, 1: the second) as a record at C_OUT, a new datagram out;
# HS_OLEN its bytes. Every register changes.
hello_record:
    CALL new_datagram
    LDI t, HS_AT + HS_CFG
    LDH r1, t, C_OUT
    ADDI r1, r1, REC_HEAD
    CALL client_hello
    LDI t, HS_AT + HS_CFG           # the message's bytes, from its header
    LDH r1, t, C_OUT
    LDH r6, r1, REC_HEAD + 2
    ADDI r6, r6, HS_HEAD
    LDI r3, CT_HANDSHAKE
    MOV r4, r6
    CALL rec_head
    ADDI r6, r6, REC_HEAD
    LDI t, HS_AT
    STH t, r6, HS_OLEN
    RET

# new_datagram: the datagram out begun anew (HS_OLEN 0), the answer of this run, made when the server's
# next message_seq is HS_NIN (HS_FMARK: a repeat of the message before it asks for this one again).
# t, r7 change.
new_datagram:
    LDI t, HS_AT
    LDI r7, 0
    STH t, r7, HS_OLEN
    LDI r7, 1
    STB t, r7, HS_ANS
    LDH r7, t, HS_NIN
    STH t, r7, HS_FMARK
    RET

# rec_head: a record header at C_OUT + HS_OLEN: type r3, DTLS 1.2, epoch 0, the next HS_WSEQ, length
# r4; r5 = its first byte. t, r5, r7 change.
rec_head:
    LDI t, HS_AT + HS_CFG
    LDH r5, t, C_OUT
    LDI t, HS_AT
    LDH r7, t, HS_OLEN
    ADD r5, r5, r7
    STB r5, r3, 0
    ADDI r7, r5, 1
    CCOPY r7, DTLS12
    LDI t, 0
    STH r5, t, 3
    STH r5, t, 5
    STH r5, t, 7
    LDI t, HS_AT
    LDH r7, t, HS_WSEQ
    STH r5, r7, 9
    ADDI r7, r7, 1
    STH t, r7, HS_WSEQ
    STH r5, r4, 11
    RET

# HS_RECORD: r1, r2 a record's contents, opened if it came in epoch 1 (below CHAIN_TOP and apart from
# the reassembly buffer: BAD_INPUT otherwise); r3 its content type: 22 handshake or 20
# ChangeCipherSpec (BAD_INPUT otherwise); r4 its epoch, 0 or 1. OUT MESSAGE: the datagram to send
# (empty: nothing); HS_ST the state after it, ST_DONE once the server's Finished checked out.
.entry HS_RECORD
    CMPI r3, CT_CCS
    J.z hr_type
    CMPI r3, CT_HANDSHAKE
    J.nz bad_input
hr_type:
    CMPI r4, 2
    J.nc bad_input
    LDI t, HS_AT
    LDB r5, t, HS_ST
    CMPI r5, ST_FAILED
    J.nc unexpected_message          # (no handshake, or a refusal ended it)
    CMPI r5, ST_IDLE
    J.z unexpected_message
    LDI t, FRAME                    # (kept over the configuration's check)
    STH t, r1, 0
    STH t, r2, 2
    STH t, r3, 4
    STH t, r4, 6
    LDI r15, HS_AT + HS_CFG         # the state the bus may have written since: checked again
    CALL cfg_check                  # r12: the datagram's bytes
    LDI t, HS_AT
    LDH r1, t, HS_OLEN
    CMP r12, r1
    J.c bad_input
    LDB r1, t, HS_RON               # the reassembly: a message begun or not, within the buffer
    CMPI r1, 2
    J.nc bad_input
    LDH r2, t, HS_RN
    LDH r3, t, HS_RG
    CMP r2, r3
    J.c bad_input
    LDI r1, HS_AT + HS_CFG
    LDH r1, r1, C_RBN
    SUBI r1, r1, HS_HEAD
    CMP r1, r2
    J.c bad_input
    LDI t, FRAME
    LDH r1, t, 0
    LDH r2, t, 2
    LDH r3, t, 4
    LDH r4, t, 6
    LDI t, CHAIN_TOP                # the record: below CHAIN_TOP, apart from the buffer and the
    CMP r2, r1                      # datagram out (kept for a resend)
    J.c bad_input
    CMP t, r2
    J.c bad_input
    LDI t, HS_AT + HS_CFG
    LDH r13, t, C_RB
    LDH r14, t, C_RBN
    ADD r14, r13, r14
    CALL apart
    LDI t, HS_AT + HS_CFG
    LDH r13, t, C_OUT
    LDI t, HS_AT
    LDH r14, t, HS_OLEN
    ADD r14, r13, r14
    CALL apart
    LDI t, HS_AT
    LDB r5, t, HS_ST
    STB t, r5, HS_STL
    LDI r6, ST_FAILED
    STB t, r6, HS_ST
    LDI r6, 0
    STB t, r6, HS_ANS

    # The epochs (tls_record.c): the client reads epoch 0 until the server's ChangeCipherSpec, then 1.
    # A record of the next epoch is dropped; of the one before, only handshake fragments are looked at,
    # for a repeat that asks for a resend (HS_REP 1: an old epoch's)
    LDI r6, 0
    CMPI r5, ST_FIN
    J.c hr_epoch
    LDI r6, 1
hr_epoch:
    CMP r4, r6
    J.a hr_end
    J.z hr_current
    CMPI r3, CT_CCS
    J.z hr_end
    LDI r6, 1
    STB t, r6, HS_REP
    J hr_walk
hr_current:
    LDI r6, 0
    STB t, r6, HS_REP
    CMPI r3, CT_CCS
    J.z hr_ccs
hr_walk:
    STH t, r1, HS_RP
    STH t, r2, HS_RE

    # Each fragment: framed (a fragment that is not ends the record: dropped, as the client drops
    # it), of the message expected next (others skipped), in order within it
hr_frag:
    LDI t, HS_AT
    LDH r1, t, HS_RP
    LDH r2, t, HS_RE
    SUB r3, r2, r1
    CMPI r3, HS_HEAD
    J.c hr_end
    SUBI r3, r3, HS_HEAD            # what the record holds after the header
    LDB r4, r1, 9                   # fragment_length: past 0xffff, more than the record holds
    CMPI r4, 0
    J.nz hr_end
    LDH r4, r1, 10                  # r4 fragment_length
    CMP r3, r4
    J.c hr_end
    LDI r5, 3
    ADDI r6, r1, 1
    ADDI r7, r1, 6
    MCMP r5, r6, r7                 # length against fragment_offset: below ends the record
    J.c hr_end
    ADDI r8, r1, HS_HEAD
    ADD r8, r8, r4                  # the next fragment
    STH t, r8, HS_RP
    LDB r5, r1, 1
    CMPI r5, 0
    J.nz hr_big                     # a message of 2^16 bytes or more
    LDH r5, r1, 2                   # r5 length, r6 fragment_offset (below 2^16, as length)
    LDH r6, r1, 7
    SUB r7, r5, r6
    CMP r7, r4                      # past the message's end: ends the record
    J.c hr_end
    LDH r7, r1, 4                   # message_seq against the next one's
    LDH r9, t, HS_NIN
    CMP r7, r9
    J.c hr_old
    J.nz hr_frag                    # a later message: skipped
    LDB r10, t, HS_REP
    CMPI r10, 0
    J.nz hr_frag                    # the next message, in the old epoch: skipped
    LDI r10, HS_AT + HS_CFG
    LDB r12, r1, 0                  # its type
    LDB r13, t, HS_RON
    CMPI r13, 0
    J.nz hr_cont
    CMPI r6, 0                      # a whole message in one fragment: taken where it lies
    J.nz hr_new
    CMP r4, r5
    J.nz hr_new
    MOV r7, r1
    J hr_take
hr_new:
    LDH r11, r10, C_RBN             # a message in fragments: into the buffer
    SUBI r11, r11, HS_HEAD
    CMP r11, r5
    J.c decode_error                # longer than the buffer takes (the client's TOO_LARGE alert)
    LDI r13, 1
    STB t, r13, HS_RON
    STB t, r12, HS_RT
    STH t, r5, HS_RN
    LDI r13, 0
    STH t, r13, HS_RG
    J hr_copy
hr_cont:
    LDB r13, t, HS_RT               # the same message: the same type and length, else skipped
    CMP r13, r12
    J.nz hr_frag
    LDH r13, t, HS_RN
    CMP r13, r5
    J.nz hr_frag
hr_copy:
    LDH r13, t, HS_RG
    CMP r13, r6                     # a fragment past what came so far: skipped (it comes again)
    J.c hr_frag
    ADD r14, r6, r4                 # its end
    CMP r13, r14
    J.nc hr_whole                   # nothing new in it
    SUB r15, r14, r13               # the new bytes: from RG on
    SUB r8, r13, r6
    ADDI r8, r8, HS_HEAD
    ADD r8, r1, r8                  # their first in the fragment
    LDH r7, r10, C_RB
    ADDI r7, r7, HS_HEAD
    ADD r7, r7, r13
    COPY r7, r8, r15
    STH t, r14, HS_RG
    MOV r13, r14
hr_whole:
    CMP r13, r5
    J.nz hr_frag

    # A whole message: its header as one fragment's (what the transcript hashes), message_seq on
    LDI r13, 0
    STB t, r13, HS_RON
    LDH r7, r10, C_RB
    STB r7, r12, 0
    STB r7, r13, 1
    STH r7, r5, 2
    STH r7, r9, 4
    STB r7, r13, 6
    STH r7, r13, 7
    STB r7, r13, 9
    STH r7, r5, 10
hr_take:                            # the message at r7: r5 its length, r12 its type
    ADDI r9, r9, 1
    STH t, r9, HS_NIN
    ADDI r1, r7, HS_HEAD            # r1, r2: its body
    ADD r2, r1, r5
    LDB r11, t, HS_STL
    CMPI r12, 0                     # HelloRequest: ignored in a handshake, and not hashed
    J.z hr_frag
    CMPI r12, 3                     # HelloVerifyRequest and Finished are not hashed here
    J.z hr_dispatch
    CMPI r12, 20
    J.z hr_dispatch
    MOV r1, r7
    CALL ts_add                     # (r1, r2 kept; r3..r11 change)
    LDB r12, r1, 0
    ADDI r1, r1, HS_HEAD
    LDI t, HS_AT
    LDB r11, t, HS_STL

    # The message the state expects, else UNEXPECTED_MESSAGE
hr_dispatch:
    CMPI r11, ST_SH
    J.z hr_sh
    CMPI r11, ST_CERT
    J.z hr_cert
    CMPI r11, ST_SKE
    J.z hr_ske
    CMPI r11, ST_SHD
    J.z hr_shd
    CMPI r11, ST_FIN
    J.z hr_fin
    J unexpected_message            # (ST_CCS: the flight sent, no message may come before the CCS)
hr_sh:
    CMPI r12, 3
    J.z hr_hvr
    CMPI r12, 2
    J.nz unexpected_message
    CALL server_hello
    LDI r11, ST_CERT
    J hr_next
hr_hvr:
    CALL hello_verify
    LDI r2, 1                       # the second ClientHello, with the cookie: sent, and nothing
    CALL hello_record               # after the request in this record is read
    J hr_end
hr_cert:
    CMPI r12, 11
    J.nz unexpected_message
    LDI t, HS_AT + HS_CFG
    LDH r3, t, C_ANC
    LDH r4, t, C_AEND
    LDH r5, t, C_NOW
    LDH r6, t, C_NAME
    LDH r7, t, C_NEND
    LDH r9, t, C_FLAGS
    ANDI r8, r9, 1
    ANDI r9, r9, 2
    J.z hr_mode
    LDI r9, 1
hr_mode:
    CALL certificate
    LDI r11, ST_SKE
    J hr_next
hr_ske:
    CMPI r12, 12
    J.nz unexpected_message
    CALL server_key_exchange
    LDI r11, ST_SHD
    J hr_next
hr_shd:
    CMPI r12, 13
    J.z hr_creq
    CMPI r12, 14
    J.nz unexpected_message
    CMP r1, r2                      # ServerHelloDone: empty (DECODE_ERROR otherwise)
    J.nz decode_error
    J hr_flight
hr_creq:
    LDI t, HS_AT                    # one request (a second one is unexpected)
    LDB r3, t, HS_CREQ
    CMPI r3, 0
    J.nz unexpected_message
    CALL cert_request
    LDI r11, ST_SHD
    J hr_next
hr_fin:
    CMPI r12, 20
    J.nz unexpected_message
    SUB r3, r2, r1                  # the server's Finished: 12 bytes of verify_data
    CMPI r3, 12
    J.nz decode_error
    MOV r5, r1                      # (ts_hash keeps r5)
    LDI r1, DIG
    CALL ts_hash
    MOV r3, r5
    LDI r1, DIG
    LDI r2, 1
    CALL finished                   # BAD_FINISHED unless it is the one the transcript gives
    LDI r7, MS_AT                   # the handshake's over: its master secret too (the keys stay
    LDI r8, 48                      # in their slots)
    CALL zero
    LDI r11, ST_DONE
    LDI t, HS_AT
    STB t, r11, HS_STL
    J hr_end

    # The client's flight: its messages in one record, then ChangeCipherSpec; Finished to HS_FIN
hr_flight:
    CALL new_datagram
    LDI t, HS_AT + HS_CFG
    LDH r1, t, C_OUT
    ADDI r1, r1, REC_HEAD
    LDH r2, t, C_CH
    LDH r3, t, C_CHE
    LDH r4, t, C_SC
    LDH r5, t, C_SS
    CALL client_flight              # FL_AT: the flight's end
    LDI x, FRAME
    LDH r1, x, FL_OUT
    LDH r2, x, FL_AT
    SUBI r2, r2, 24                 # Finished: its 24 bytes to HS_FIN
    LDI t, HS_AT + HS_FIN
    LDI r6, 24
    COPY t, r2, r6
    SUB r4, r2, r1                  # the other messages: one record
    LDI r3, CT_HANDSHAKE
    CALL rec_head
    ADDI r4, r4, REC_HEAD
    LDI t, HS_AT
    STH t, r4, HS_OLEN
    LDI r3, CT_CCS
    LDI r4, 1
    CALL rec_head
    LDI t, 1
    STB r5, t, REC_HEAD
    LDI t, HS_AT
    LDH r4, t, HS_OLEN
    ADDI r4, r4, REC_HEAD + 1
    STH t, r4, HS_OLEN
    LDI r11, ST_CCS
    STB t, r11, HS_STL
    J hr_end

hr_next:                            # the state moves on; the record's next fragment
    LDI t, HS_AT
    STB t, r11, HS_STL
    J hr_frag

hr_big:                             # a message of 2^16 bytes or more: too large if it is the next one
    LDH r7, r1, 4
    LDH r9, t, HS_NIN
    CMP r7, r9
    J.nz hr_frag
    J decode_error

    # ChangeCipherSpec: one byte, 1 (DECODE_ERROR otherwise); where the client waits for it, on to the
    # Finished (a message begun in epoch 0 does not go on); anywhere else a retransmission, ignored
hr_ccs:
    SUB r6, r2, r1
    CMPI r6, 1
    J.nz decode_error
    LDB r6, r1, 0
    CMPI r6, 1
    J.nz decode_error
    CMPI r5, ST_CCS
    J.nz hr_end
    LDI r6, ST_FIN
    STB t, r6, HS_STL
    LDI r6, 0
    STB t, r6, HS_RON

hr_end:
    LDI t, HS_AT
    LDB r1, t, HS_STL
    STB t, r1, HS_ST
hs_out:
    LDI t, HS_AT + HS_CFG
    LDH r1, t, C_OUT
    LDI t, HS_AT
    LDH r2, t, HS_OLEN
    LDB r3, t, HS_ANS
    CMPI r3, 0
    J.nz hs_answer
    LDI r2, 0
hs_answer:
    OUT MESSAGE, r1, r2
    END

    # An old message's fragment (a retransmission): the first fragment of the last message before
    # the datagram out was made says the server did not get it; the datagram again (as the
    # software client's flight_mark), else skipped
hr_old:
    CMPI r6, 0
    J.nz hr_frag
    ADDI r7, r7, 1
    LDH r9, t, HS_FMARK
    CMP r7, r9
    J.nz hr_frag
    LDB r5, t, HS_STL
    CALL resend
    J hr_end

# HS_RESEND: the last datagram out again (the caller's retransmission timer ran out), its records
# with new sequence numbers (RFC 6347 4.2.4), while the client waits for the server's answer to it:
# the second ClientHello's, or the flight's (then the caller seals the client's Finished again with
# its next epoch-1 number). OUT MESSAGE: the datagram, empty in any other state. HS_ST unchanged.
.entry HS_RESEND
    LDI t, HS_AT
    LDB r5, t, HS_ST
    STB t, r5, HS_STL
    LDI r6, 0
    STB t, r6, HS_ANS
    CALL resend
    J hs_out

# resend: in state r5 ST_SH, ST_CCS or ST_FIN, with a datagram kept, each of its records (whole, within
# HS_OLEN) gets the next HS_WSEQ; HS_ANS = 1. Otherwise nothing. The configuration and HS_OLEN lie in
# the public state, which the bus may have rewritten since the last program: checked again first, as
# HS_RECORD checks them (BAD_INPUT), so that no rewrite makes it read or write the secret top.
# t, r1..r7, r12..r15 change.
resend:
    LDI t, HS_AT
    LDH r2, t, HS_OLEN
    CMPI r2, 0
    J.z resend_done
    CMPI r5, ST_SH
    J.z resend_go
    CMPI r5, ST_CCS
    J.z resend_go
    CMPI r5, ST_FIN
    J.nz resend_done
resend_go:
    LDI r15, HS_AT + HS_CFG
    CALL cfg_check                  # r12: the room of the datagram out
    LDI t, HS_AT
    LDH r2, t, HS_OLEN
    CMP r12, r2
    J.c bad_input
    LDI r1, 1
    STB t, r1, HS_ANS
    LDI r3, HS_AT + HS_CFG
    LDH r1, r3, C_OUT
    ADD r2, r1, r2                  # the datagram's end
resend_rec:
    ADDI r3, r1, REC_HEAD
    J.c resend_done
    CMP r2, r3                      # a whole header left, else done
    J.c resend_done
    LDH r7, t, HS_WSEQ
    STH r1, r7, 9
    ADDI r7, r7, 1
    STH t, r7, HS_WSEQ
    LDH r4, r1, 11
    ADD r1, r3, r4
    J.nc resend_rec
resend_done:
    RET
