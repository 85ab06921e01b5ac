/* What the sensor's two firmwares share besides the provisioning blob: the NIC wait, the JSON
 * lines on the UART (put together by hand: picolibc's smallest printf is 1.7 KiB of code) and the
 * fake sensor's readings. sensor.c runs the DTLS client of sw/proto (sw and sw+hw configs),
 * ../sensor_hw/sensor_hw.c the engine's (HW mode, the hw-rv32i config). */
#ifndef SENSOR_IO_H
#define SENSOR_IO_H

#include <stddef.h>
#include <stdint.h>

/* The node's nominal clock: turns cycles into the milliseconds of the DTLS timers. */
#define SENSOR_CLOCK_HZ 50000000u
#define SENSOR_CYCLES_PER_MS (SENSOR_CLOCK_HZ / 1000u)

/* Exit codes. */
enum { SENSOR_EXIT_OK = 0, SENSOR_EXIT_PROVISION = 1, SENSOR_EXIT_SETUP = 2, SENSOR_EXIT_TLS = 3 };

/* Sleeps until a packet waits in the NIC or ms milliseconds have passed (UINT32_MAX: no limit),
 * on the nic_rx and timer sources of the intc; both are off again on return. */
void sensor_wait_rx(uint32_t ms);
/* The same until the cycle count (node_cycles) reaches deadline (UINT64_MAX: no limit). */
void sensor_wait_rx_until(uint64_t deadline);

/* Appends s or the decimal v at d; returns the new end (not terminated). Unbounded: each line's
 * buffer holds its longest form (the node's name 31 characters, a provisioning problem 25,
 * numbers 10 digits; the longest, the last line, 191 of its 200 bytes). */
char *sensor_cat(char *d, const char *s);
char *sensor_cat_u(char *d, uint32_t v);
/* Sends the line in buf up to end, with its newline. */
void sensor_say(char *buf, char *end);

/* The failure line, then the exit: {"error":E,"where":"W"[,"alert_sent":A][,"alert_received":A],
 * "stack_peak":N}. E is the se_status number st, or the provisioning problem in quotes (reason);
 * an alert < 0 is left out. */
_Noreturn void sensor_fail(int code, const char *where, const char *reason, int st, int alert_sent,
                           int alert_received);

/* The run's lines: {"handshake":h,"cached":0|1,"suite":S,"cycles":N} after each handshake,
 * {"app_data":bytes,"records":N,"cycles":N} after the data, and the last one,
 * {"done":1,"readings":N,"name":"..","retransmits":N,"dropped":N,"bad_mac":N,"bytes_in":N,
 * "stack_peak":B,"stack_size":B}. */
void sensor_line_handshake(unsigned h, int cached, unsigned suite, uint32_t cycles);
void sensor_line_app_data(uint32_t bytes, unsigned records, uint32_t cycles);
void sensor_line_done(unsigned readings, uint32_t retransmits, uint32_t dropped, uint32_t bad_mac, uint32_t bytes_in);

/* The node's name from its certificate's commonName (cn, len): printable ASCII without '"' or '\\',
 * as it goes into a JSON string unescaped, shorter than 32 bytes. 0 if it is not. */
extern char sensor_name[32];
int sensor_set_name(const uint8_t *cn, size_t len);

/* Reading seq as text, "<name> seq=<seq> temp=<t>C" (t between 20.5 and 22.5), at line (80 bytes);
 * returns its length. */
size_t sensor_reading(char *line, unsigned seq);

#endif
