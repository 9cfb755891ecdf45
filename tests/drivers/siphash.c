/* siphash: checks common/base/siphash.h against the 64 test vectors of SipHash-2-4-128 that the
 * reference implementation publishes (key 00 01 .. 0f, messages 00 01 .. of 0 to 63 bytes), those
 * of SipHash-2-4-64, whole and fed in two pieces split anywhere, and
 * that two keys drawn with siphash_key_draw differ. Prints "ok 64" or the first mismatch, and
 * exits 1 on one. Usage: siphash */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/siphash.h"

/* The reference's vectors_sip128, one digest of 16 bytes in hex each. */
static const char *const expected[64] = {
    "a3817f04ba25a8e66df67214c7550293", "da87c1d86b99af44347659119b22fc45",
    "8177228da4a45dc7fca38bdef60affe4", "9c70b60c5267a94e5f33b6b02985ed51",
    "f88164c12d9c8faf7d0f6e7c7bcd5579", "1368875980776f8854527a07690e9627",
    "14eeca338b208613485ea0308fd7a15e", "a1f1ebbed8dbc153c0b84aa61ff08239",
    "3b62a9ba6258f5610f83e264f31497b4", "264499060ad9baabc47f8b02bb6d71ed",
    "00110dc378146956c95447d3f3d0fbba", "0151c568386b6677a2b4dc6f81e5dc18",
    "d626b266905ef35882634df68532c125", "9869e247e9c08b10d029934fc4b952f7",
    "31fcefac66d7de9c7ec7485fe4494902", "5493e99933b0a8117e08ec0f97cfc3d9",
    "6ee2a4ca67b054bbfd3315bf85230577", "473d06e8738db89854c066c47ae47740",
    "a426e5e423bf4885294da481feaef723", "78017731cf65fab074d5208952512eb1",
    "9e25fc833f2290733e9344a5e83839eb", "568e495abe525a218a2214cd3e071d12",
    "4a29b54552d16b9a469c10528eff0aae", "c9d184ddd5a9f5e0cf8ce29a9abf691c",
    "2db479ae78bd50d8882a8a178a6132ad", "8ece5f042d5e447b5051b9eacb8d8f6f",
    "9c0b53b4b3c307e87eaee08678141f66", "abf248af69a6eae4bfd3eb2f129eeb94",
    "0664da1668574b88b935f3027358aef4", "aa4b9dc4bf337de90cd4fd3c467c6ab7",
    "ea5c7f471faf6bde2b1ad7d4686d2287", "2939b0183223fafc1723de4f52c43d35",
    "7c3956ca5eeafc3e363e9d556546eb68", "77c6077146f01c32b6b69d5f4ea9ffcf",
    "37a6986cb8847edf0925f0f1309b54de", "a705f0e69da9a8f907241a2e923c8cc8",
    "3dc47d1f29c448461e9e76ed904f6711", "0d62bf01e6fc0e1a0d3c4751c5d3692b",
    "8c03468bca7c669ee4fd5e084bbee7b5", "528a5bb93baf2c9c4473cce5d0d22bd9",
    "df6a301e95c95dad97ae0cc8c6913bd8", "801189902c857f39e73591285e70b6db",
    "e617346ac9c231bb3650ae34ccca0c5b", "27d93437efb721aa401821dcec5adf89",
    "89237d9ded9c5e78d8b1c9b166cc7342", "4a6d8091bf5e7d651189fa94a250b14c",
    "0e33f96055e7ae893ffc0e3dcf492902", "e61c432b720b19d18ec8d84bdc63151b",
    "f7e5aef549f782cf379055a608269b16", "438d030fd0b7a54fa837f2ad201a6403",
    "a590d3ee4fbf04e3247e0d27f286423f", "5fe2c1a172fe93c4b15cd37caef9f538",
    "2c97325cbd06b36eb2133dd08b3a017c", "92c814227a6bca949ff0659f002ad39e",
    "dce850110bd8328cfbd50841d6911d87", "67f14984c7da791248e32bb5922583da",
    "1938f2cf72d54ee97e94166fa91d2a36", "74481e9646ed49fe0f6224301604698e",
    "57fca5de98a9d6d8006438d0583d8a1d", "9fecde1cefdc1cbed4763674d9575359",
    "e3040c00eb28f15366ca73cbd872e740", "7697009a6a831dfecca91c5993670f7a",
    "5853542321f567a005d547a4f04759bd", "5150d1772f50834a503e069a973fbd7c",
};

/* The reference's vectors_sip64 (the same key and messages), each read as a little-endian word. */
static const uint64_t expected64[64] = {
    0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
    0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
    0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
    0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
    0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
    0xa129ca6149be45e5ULL, 0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,
    0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL, 0xbed65cf21aa2ee98ULL,
    0xd0f2cbb02e3b67c7ULL, 0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
    0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL, 0x17d835b85bbb15f3ULL,
    0x2f2e6163076bcfadULL, 0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,
    0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL, 0x7127512f72f27cceULL,
    0xa7f32346f95978e3ULL, 0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
    0x314dffbe0815a3b4ULL, 0x027990f029623981ULL, 0xcadcd4e59ef40c4dULL,
    0x9abfd8766a33735cULL, 0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,
    0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL, 0xf935451de4f21df2ULL,
    0xa9538f0419755787ULL, 0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
    0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL, 0xee64435a9752fe72ULL,
    0xa192d576b245165aULL, 0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,
    0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL, 0xb78dbfaf3a8d83bdULL,
    0xea1ad565322a1a0bULL, 0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
    0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL, 0xe51b38608ef25f57ULL,
    0x958a324ceb064572ULL,
};

static void to_hex(const unsigned char *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The reference's key (00 01 .. 0f) and messages (the first 0 to 63 bytes of 00 01 .. 3f). */
static struct siphash_key reference_inputs(unsigned char message[64])
{
    unsigned char key_bytes[SIPHASH_KEY_BYTES];
    for (int i = 0; i < SIPHASH_KEY_BYTES; i++)
        key_bytes[i] = (unsigned char)i;
    for (int i = 0; i < 64; i++)
        message[i] = (unsigned char)i;
    return siphash_key_of(key_bytes);
}

/* The vectors; the number of the first that differs, or -1. */
static int first_mismatch(void)
{
    unsigned char message[64], digest[SIPHASH_128_BYTES];
    char hex[2 * SIPHASH_128_BYTES + 1];
    const struct siphash_key key = reference_inputs(message);
    for (int len = 0; len < 64; len++) {
        siphash128(&key, message, (size_t)len, digest);
        to_hex(digest, sizeof digest, hex);
        if (strcmp(hex, expected[len]) != 0) {
            printf("length %d: %s, expected %s\n", len, hex, expected[len]);
            return len;
        }
    }
    return -1;
}

/* SipHash-2-4-64 against its vectors, given whole and in two pieces split at every point (the
 * pieces joined are the message): the number of the first that differs, or -1. */
static int first_mismatch64(void)
{
    unsigned char message[64];
    const struct siphash_key key = reference_inputs(message);
    for (int len = 0; len < 64; len++) {
        uint64_t whole = siphash64(&key, message, (size_t)len);
        if (whole != expected64[len]) {
            printf("SipHash-64, length %d: %016llx, expected %016llx\n", len,
                   (unsigned long long)whole, (unsigned long long)expected64[len]);
            return len;
        }
        for (int cut = 0; cut <= len; cut++) {
            struct siphash64 h;
            siphash64_begin(&h, &key);
            siphash64_add(&h, message, (size_t)cut);
            siphash64_add(&h, message + cut, (size_t)(len - cut));
            if (siphash64_end(&h) != whole) {
                printf("SipHash-64, length %d cut at %d differs\n", len, cut);
                return len;
            }
        }
    }
    return -1;
}

int main(void)
{
    if (first_mismatch() >= 0 || first_mismatch64() >= 0)
        return 1;
    struct siphash_key a, b;
    if (!siphash_key_draw(&a) || !siphash_key_draw(&b)) {
        perror("siphash_key_draw");
        return 1;
    }
    if (a.k0 == b.k0 && a.k1 == b.k1) {
        printf("two keys drawn are the same\n");
        return 1;
    }
    printf("ok 64\n");
    return 0;
}
