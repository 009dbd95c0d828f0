// zlib (Debian's zlib1g-dev), for checking that a PNG's image data inflates to its rows.
// The whole check lives here so no z_stream pointer reaches Swift code.
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/// What `scrollcast_png_inflate_check` found.
enum {
    SCROLLCAST_PNG_DATA_OK = 0,
    SCROLLCAST_PNG_DATA_DAMAGED = 1,     // zlib refused the stream (bad header, codes or checksum)
    SCROLLCAST_PNG_DATA_SHORT = 2,       // the stream ended (or the input ran out) before the last row
    SCROLLCAST_PNG_DATA_LONG = 3,        // more bytes than the rows hold
    SCROLLCAST_PNG_DATA_FILTER = 4,      // a row starts with a filter type other than 0–4
    SCROLLCAST_PNG_DATA_TRAILING = 5,    // input left after the end of the stream
    SCROLLCAST_PNG_DATA_NO_MEMORY = 6,
};

/// Inflates the zlib stream of `length` bytes at `data` through a 64 KiB buffer, checking it as
/// PNG image data: `passes` groups of `row_counts[i]` rows of `row_lengths[i]` bytes each (the
/// filter byte included) must be exactly what it inflates to, every row must start with filter
/// type 0–4, and the stream must end, its Adler-32 checked, where the input does. Memory use does
/// not depend on the image's size.
static inline int scrollcast_png_inflate_check(const uint8_t *data, size_t length, const uint64_t *row_lengths,
                                               const uint64_t *row_counts, int passes) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return SCROLLCAST_PNG_DATA_NO_MEMORY;
    static const uint8_t empty = 0;
    stream.next_in = (Bytef *)(data != NULL ? data : &empty);
    uint8_t buffer[65536];
    int pass = 0;
    uint64_t rows_left = passes > 0 ? row_counts[0] : 0;
    uint64_t until_filter = 0;   // bytes before the next row's filter byte
    size_t fed = 0;
    int result = SCROLLCAST_PNG_DATA_OK;
    for (;;) {
        if (stream.avail_in == 0 && fed < length) {
            size_t chunk = length - fed > (1u << 30) ? (1u << 30) : length - fed;
            stream.next_in = (Bytef *)(data + fed);
            stream.avail_in = (uInt)chunk;
            fed += chunk;
        }
        stream.next_out = buffer;
        stream.avail_out = sizeof buffer;
        int status = inflate(&stream, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) { result = SCROLLCAST_PNG_DATA_DAMAGED; break; }
        size_t produced = sizeof buffer - stream.avail_out;
        size_t at = 0;
        while (at < produced) {
            if (until_filter > 0) {
                uint64_t skip = until_filter < produced - at ? until_filter : produced - at;
                until_filter -= skip;
                at += skip;
                continue;
            }
            while (pass < passes && rows_left == 0) { pass += 1; rows_left = pass < passes ? row_counts[pass] : 0; }
            if (pass >= passes) { result = SCROLLCAST_PNG_DATA_LONG; break; }
            if (buffer[at] > 4) { result = SCROLLCAST_PNG_DATA_FILTER; break; }
            at += 1;
            until_filter = row_lengths[pass] - 1;
            rows_left -= 1;
        }
        if (result != SCROLLCAST_PNG_DATA_OK) break;
        if (status == Z_STREAM_END) {
            while (pass < passes && rows_left == 0) { pass += 1; rows_left = pass < passes ? row_counts[pass] : 0; }
            if (until_filter > 0 || pass < passes) result = SCROLLCAST_PNG_DATA_SHORT;
            else if (stream.avail_in > 0 || fed < length) result = SCROLLCAST_PNG_DATA_TRAILING;
            break;
        }
        // No progress possible: the input is used up before the stream's end.
        if (status == Z_BUF_ERROR && stream.avail_in == 0 && fed >= length) { result = SCROLLCAST_PNG_DATA_SHORT; break; }
    }
    inflateEnd(&stream);
    return result;
}
