// A stand-in for commons-codec, for building JADE from source without it (tests/jade/build-jade):
// the three static methods of org.apache.commons.codec.binary.Base64 that JADE calls, on
// java.util.Base64. Our own code; not part of acp-tools.
package org.apache.commons.codec.binary;

/** A stand-in for the three static methods of commons-codec's Base64 that JADE uses. */
public final class Base64 {
    private Base64() {}

    public static byte[] encodeBase64(byte[] data) {
        return data == null ? null : java.util.Base64.getEncoder().encode(data);
    }

    /* commons-codec ignores bytes outside the alphabet; the MIME decoder does too */
    public static byte[] decodeBase64(byte[] data) {
        return data == null ? null : java.util.Base64.getMimeDecoder().decode(data);
    }

    public static byte[] decodeBase64(String data) {
        return data == null ? null : java.util.Base64.getMimeDecoder().decode(data);
    }
}
