#ifndef QAPITAL_CIMAGECODECS_SHIM_H
#define QAPITAL_CIMAGECODECS_SHIM_H

/* PNG and JPEG decoding of a memory buffer to 8-bit RGBA, through libpng and libjpeg(-turbo).
   Both libraries report errors by longjmp. That jump must never cross a Swift frame, so every
   setjmp here is in the same C function as the library calls it guards, and these functions
   only ever return a status. libpng's simplified API (png_image_*) does its own setjmp inside
   libpng. The pixels are malloc'd; the caller frees them with qic_free. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>
#include <jpeglib.h>

typedef struct qic_image {
    uint32_t width;
    uint32_t height;
    uint8_t *pixels; /* width * height * 4 bytes, RGBA, rows top to bottom */
} qic_image;

enum {
    QIC_OK = 0,
    QIC_ERROR = 1,      /* broken, truncated or unsupported data */
    QIC_TOO_LARGE = 2,  /* a side longer than max_side, or more than QIC_MAX_PIXELS decoded */
    QIC_NO_MEMORY = 3,
};

/* At most this many pixels are decoded (32 MB of RGBA): a tiny hostile file may claim
   8000×8000, and pictures are decoded several at a time. */
#define QIC_MAX_PIXELS ((uint64_t)8 * 1024 * 1024)

static inline void qic_free(void *pixels) { free(pixels); }

/* PNG (any colour type and depth; gamma and palette handled by libpng) to RGBA. */
static inline int qic_decode_png(const uint8_t *data, size_t size, uint32_t max_side, qic_image *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    out->pixels = NULL;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        png_image_free(&image);
        return QIC_ERROR;
    }
    if (image.width == 0 || image.height == 0) { png_image_free(&image); return QIC_ERROR; }
    if (image.width > max_side || image.height > max_side
        || (uint64_t)image.width * image.height > QIC_MAX_PIXELS) { png_image_free(&image); return QIC_TOO_LARGE; }
    image.format = PNG_FORMAT_RGBA;
    size_t bytes = (size_t)PNG_IMAGE_SIZE(image);
    uint8_t *pixels = malloc(bytes);
    if (pixels == NULL) { png_image_free(&image); return QIC_NO_MEMORY; }
    /* A NULL background composites nothing: alpha is kept. Truncated data fails here. */
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        png_image_free(&image);
        return QIC_ERROR;
    }
    out->width = image.width;
    out->height = image.height;
    out->pixels = pixels;
    png_image_free(&image);
    return QIC_OK;
}

/* libjpeg's error manager, extended with the place to jump back to. */
struct qic_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static inline void qic_jpeg_error_exit(j_common_ptr cinfo) {
    struct qic_jpeg_error *error = (struct qic_jpeg_error *)cinfo->err;
    longjmp(error->jump, 1);
}

/* Warnings (corrupt data the library can skip) are not printed: stderr belongs to ncurses. */
static inline void qic_jpeg_silent(j_common_ptr cinfo) { (void)cinfo; }
static inline void qic_jpeg_silent_level(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

/* libjpeg's error manager, made to jump back (error_exit) and to print nothing: its messages
   would land on the full-screen terminal. */
static inline struct jpeg_error_mgr *qic_jpeg_quiet_errors(struct qic_jpeg_error *error) {
    struct jpeg_error_mgr *manager = jpeg_std_error(&error->manager);
    manager->error_exit = qic_jpeg_error_exit;
    manager->output_message = qic_jpeg_silent;
    manager->emit_message = qic_jpeg_silent_level;
    return manager;
}

/* JPEG (grey or colour; CMYK is refused) to RGBA. libjpeg scales by 1/2, 1/4 or 1/8 while
   decoding when the result stays at least min_width × min_height: a 4000 px photo for a 16 px
   thumbnail never costs 64 MB. max_side applies to the image as stored. */
static inline int qic_decode_jpeg(const uint8_t *data, size_t size, uint32_t max_side,
                                  uint32_t min_width, uint32_t min_height, qic_image *out) {
    struct jpeg_decompress_struct cinfo;
    struct qic_jpeg_error error;
    uint8_t *volatile pixels = NULL;
    out->pixels = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = qic_jpeg_quiet_errors(&error);
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return QIC_ERROR;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) {
        jpeg_destroy_decompress(&cinfo);
        return QIC_ERROR;
    }
    if (cinfo.image_width == 0 || cinfo.image_height == 0) { jpeg_destroy_decompress(&cinfo); return QIC_ERROR; }
    if (cinfo.image_width > max_side || cinfo.image_height > max_side) {
        jpeg_destroy_decompress(&cinfo);
        return QIC_TOO_LARGE;
    }
    cinfo.out_color_space = JCS_EXT_RGBA;
    unsigned denom = 8;
    while (denom > 1 && (cinfo.image_width / denom < min_width || cinfo.image_height / denom < min_height)) denom /= 2;
    cinfo.scale_num = 1;
    cinfo.scale_denom = denom;
    jpeg_start_decompress(&cinfo);
    if ((uint64_t)cinfo.output_width * cinfo.output_height > QIC_MAX_PIXELS) {
        jpeg_destroy_decompress(&cinfo);
        return QIC_TOO_LARGE;
    }
    if (cinfo.output_components != 4) {
        jpeg_destroy_decompress(&cinfo);
        return QIC_ERROR;
    }
    size_t stride = (size_t)cinfo.output_width * 4;
    pixels = malloc(stride * cinfo.output_height);
    if (pixels == NULL) { jpeg_destroy_decompress(&cinfo); return QIC_NO_MEMORY; }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.output_scanline);
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    out->width = cinfo.output_width;
    out->height = cinfo.output_height;
    out->pixels = pixels;
    jpeg_destroy_decompress(&cinfo);
    return QIC_OK;
}

/* Compresses RGB pixels to a JPEG in memory (for tests, which need JPEG files to decode).
   On success *out is malloc'd (free with qic_free) and *out_size is its length. */
static inline int qic_encode_jpeg_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                                      uint8_t **out, size_t *out_size) {
    struct jpeg_compress_struct cinfo;
    struct qic_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    unsigned long buffer_size = 0;
    *out = NULL;
    *out_size = 0;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = qic_jpeg_quiet_errors(&error);
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return QIC_ERROR;
    }
    jpeg_create_compress(&cinfo);
    unsigned char *target = NULL;
    jpeg_mem_dest(&cinfo, &target, &buffer_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * width * 3);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    buffer = target;
    *out = target;
    *out_size = buffer_size;
    jpeg_destroy_compress(&cinfo);
    return QIC_OK;
}

#endif
