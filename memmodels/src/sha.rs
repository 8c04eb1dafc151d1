//! The hash accelerators of `tigris_targets::periph::ShaSpec` (the ESP32 and ESP32-S3 SHA blocks in
//! their CPU-fed "typical" mode): a start or continue register runs one FIPS 180-4 compression of
//! the message words, with the `sha1`/`sha2` crates' compression functions.
//!
//! The state is kept as the digest's byte stream (the hash words big-endian, FIPS 180-4 §2.2.1:
//! H0 leftmost), and the registers hold that stream and the message's four bytes a word in the
//! block's `ByteOrder`.

use sha2::digest::generic_array::GenericArray;
use tigris_targets::periph::{ByteOrder, PeripheralSpec, ShaAlgorithm};

/// The state of each engine of a block that keeps it inside (no hash registers), by index in
/// `ShaSpec::engines`; empty until the engine's first start.
pub(crate) struct ShaStates(Vec<Vec<u8>>);

impl ShaStates {
    pub(crate) fn new(spec: &PeripheralSpec) -> ShaStates {
        let engines = spec.sha.as_ref().map_or(0, |s| s.engines.len());
        ShaStates(vec![Vec::new(); engines])
    }

    /// Register `r` of block `spec` (its words `words`) was written with `bits`: a start, continue
    /// or load of one of its engines runs now. Returns the word of that engine's busy register and
    /// the cycles it reads 1 for.
    pub(crate) fn written(
        &mut self,
        spec: &PeripheralSpec,
        r: usize,
        bits: u32,
        words: &mut [u32],
    ) -> Option<(usize, u64)> {
        let sha = spec.sha.as_ref()?;
        // ESP32 TRM §16.5 and ESP32-S3 TRM §18.6: each control register acts on a write of 1 to bit 0.
        if bits & 1 == 0 {
            return None;
        }
        let word = |r: usize| (spec.registers[r].offset / 4) as usize;
        let (i, e) = sha
            .engines
            .iter()
            .enumerate()
            .find(|(_, e)| r == e.start || r == e.continue_block || e.load == Some(r))?;
        let order = sha.byte_order;
        if e.load == Some(r) {
            write_stream(words, word(sha.message), &self.0[i], order);
            return Some((word(e.busy), sha.load_cycles));
        }
        let algorithm = match e.mode {
            Some(m) => e.algorithms.get(words[word(m)] as usize),
            None => e.algorithms.first(),
        };
        // A mode the file lists no algorithm for (the ESP32-S3's SHA-512/t) does nothing.
        let algorithm = *algorithm?;
        let mut state = if r == e.start {
            initial(algorithm)
        } else {
            match sha.hash {
                Some(h) => read_stream(words, word(h), algorithm.state_bytes(), order),
                None => self.0[i].clone(),
            }
        };
        // An engine continued before its first start has no state to go on from (ASSUMPTION:
        // the hardware's would be undefined); nothing happens.
        if state.len() != algorithm.state_bytes() {
            return None;
        }
        let message = read_stream(words, word(sha.message), algorithm.block_bytes(), order);
        compress(algorithm, &mut state, &message);
        match sha.hash {
            Some(h) => write_stream(words, word(h), &state, order),
            None => self.0[i] = state,
        }
        Some((word(e.busy), sha.block_cycles))
    }
}

/// `len` bytes of the stream held in the words from `first`.
fn read_stream(words: &[u32], first: usize, len: usize, order: ByteOrder) -> Vec<u8> {
    let held = &words[first..first + len / 4];
    held.iter().flat_map(|&w| order.bytes(w)).collect()
}

/// Put `bytes` (a whole number of words) into the words from `first`.
fn write_stream(words: &mut [u32], first: usize, bytes: &[u8], order: ByteOrder) {
    for (w, chunk) in words[first..].iter_mut().zip(bytes.chunks_exact(4)) {
        *w = order.word(chunk.try_into().expect("four bytes"));
    }
}

/// FIPS 180-4 §5.3.1 (SHA-1) and §5.3.2/§5.3.3 (SHA-224, SHA-256) initial hash values.
const H_SHA1: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
const H_SHA224: [u32; 8] = [
    0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4,
];
const H_SHA256: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
/// FIPS 180-4 §5.3.4/§5.3.5 (SHA-384, SHA-512) and §5.3.6.1/§5.3.6.2 (SHA-512/224, SHA-512/256).
const H_SHA384: [u64; 8] = [
    0xcbbb9d5dc1059ed8,
    0x629a292a367cd507,
    0x9159015a3070dd17,
    0x152fecd8f70e5939,
    0x67332667ffc00b31,
    0x8eb44a8768581511,
    0xdb0c2e0d64f98fa7,
    0x47b5481dbefa4fa4,
];
const H_SHA512: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];
const H_SHA512_224: [u64; 8] = [
    0x8c3d37c819544da2,
    0x73e1996689dcd4d6,
    0x1dfab7ae32ff9c82,
    0x679dd514582f9fcf,
    0x0f6d2b697bd44da8,
    0x77e36f7304c48942,
    0x3f9d85a86a1d36c8,
    0x1112e6ad91d692a1,
];
const H_SHA512_256: [u64; 8] = [
    0x22312194fc2bf72c,
    0x9f555fa3c84c64c2,
    0x2393b86b6f53b151,
    0x963877195940eabd,
    0x96283ee2a88effe3,
    0xbe5e1e2553863992,
    0x2b0199fc2c85b8aa,
    0x0eb72ddc81c52ca2,
];

/// The initial hash value of `algorithm` as a byte stream.
fn initial(algorithm: ShaAlgorithm) -> Vec<u8> {
    match algorithm {
        ShaAlgorithm::Sha1 => to_stream(&H_SHA1, u32::to_be_bytes),
        ShaAlgorithm::Sha224 => to_stream(&H_SHA224, u32::to_be_bytes),
        ShaAlgorithm::Sha256 => to_stream(&H_SHA256, u32::to_be_bytes),
        ShaAlgorithm::Sha384 => to_stream(&H_SHA384, u64::to_be_bytes),
        ShaAlgorithm::Sha512 => to_stream(&H_SHA512, u64::to_be_bytes),
        ShaAlgorithm::Sha512_224 => to_stream(&H_SHA512_224, u64::to_be_bytes),
        ShaAlgorithm::Sha512_256 => to_stream(&H_SHA512_256, u64::to_be_bytes),
    }
}

/// The byte stream of hash words, each as `to` gives its `N` bytes.
fn to_stream<T: Copy, const N: usize>(words: &[T], to: fn(T) -> [u8; N]) -> Vec<u8> {
    words.iter().flat_map(|&w| to(w)).collect()
}

/// The `W` hash words of `N` bytes each in a byte stream, each as `from` reads its bytes.
fn from_stream<T, const W: usize, const N: usize>(bytes: &[u8], from: fn([u8; N]) -> T) -> [T; W] {
    std::array::from_fn(|i| from(bytes[i * N..(i + 1) * N].try_into().expect("N bytes")))
}

/// One compression of the message block `block` into `state` (both byte streams).
fn compress(algorithm: ShaAlgorithm, state: &mut [u8], block: &[u8]) {
    let new = match algorithm {
        ShaAlgorithm::Sha1 => {
            let mut h = from_stream(state, u32::from_be_bytes);
            sha1::compress(&mut h, &[GenericArray::clone_from_slice(block)]);
            to_stream(&h, u32::to_be_bytes)
        }
        ShaAlgorithm::Sha224 | ShaAlgorithm::Sha256 => {
            let mut h = from_stream(state, u32::from_be_bytes);
            sha2::compress256(&mut h, &[GenericArray::clone_from_slice(block)]);
            to_stream(&h, u32::to_be_bytes)
        }
        _ => {
            let mut h = from_stream(state, u64::from_be_bytes);
            sha2::compress512(&mut h, &[GenericArray::clone_from_slice(block)]);
            to_stream(&h, u64::to_be_bytes)
        }
    };
    state.copy_from_slice(&new);
}

#[cfg(test)]
mod tests {
    use crate::periph::Peripherals;
    use sha2::Digest;
    use tigris_targets::periph::load_peripherals;

    /// A machine of the built-in chip file `chip`, and a cycle count that moves on with each access.
    struct Chip {
        p: Peripherals,
        now: u64,
    }

    impl Chip {
        fn new(chip: &str) -> Chip {
            let specs = load_peripherals(chip, &[]).unwrap();
            Chip {
                p: Peripherals::new(&specs, 240_000_000),
                now: 0,
            }
        }

        fn write(&mut self, addr: u32, value: u32) {
            self.now += 1;
            assert!(self.p.write(addr, 4, value, self.now));
        }

        fn read(&mut self, addr: u32) -> u32 {
            self.now += 1;
            self.p.read(addr, 4, self.now).unwrap()
        }

        /// Poll `busy` until it reads 0, as sha_hal_wait_idle does; how many reads gave 1.
        fn wait_idle(&mut self, busy: u32) -> u32 {
            let mut busy_reads = 0;
            while self.read(busy) != 0 {
                busy_reads += 1;
                assert!(busy_reads < 1000, "BUSY never clears");
            }
            busy_reads
        }
    }

    /// FIPS 180-4 §5.1 padding: a 1 bit, zeros, and the bit length in the last `length_bytes`.
    fn padded(message: &[u8], block: usize) -> Vec<u8> {
        let length_bytes = block / 8;
        let mut m = message.to_vec();
        m.push(0x80);
        while m.len() % block != block - length_bytes {
            m.push(0);
        }
        let bits = (message.len() as u128 * 8).to_be_bytes();
        m.extend_from_slice(&bits[16 - length_bytes..]);
        m
    }

    /// Memory words as the CPU (little-endian) loads them from `bytes`.
    fn memory_words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
    }

    const S3_SHA: u32 = 0x6003_B000;
    const S3_START: u32 = S3_SHA + 0x10;
    const S3_CONTINUE: u32 = S3_SHA + 0x14;
    const S3_BUSY: u32 = S3_SHA + 0x18;
    const S3_H: u32 = S3_SHA + 0x40;
    const S3_M: u32 = S3_SHA + 0x80;

    /// One block as ESP-IDF's ESP32-S3 sha_hal_hash_block feeds it: the block's memory words
    /// into M_n unswapped, then START or CONTINUE, then a wait for idle.
    fn s3_block(chip: &mut Chip, block: &[u8], first: bool) {
        for (i, w) in memory_words(block).enumerate() {
            chip.write(S3_M + 4 * i as u32, w);
        }
        chip.write(if first { S3_START } else { S3_CONTINUE }, 1);
        chip.wait_idle(S3_BUSY);
    }

    /// The state as sha_hal_read_digest reads it: `words` H_n registers into memory words.
    fn s3_state(chip: &mut Chip, words: usize) -> Vec<u8> {
        (0..words as u32)
            .flat_map(|i| chip.read(S3_H + 4 * i).to_le_bytes())
            .collect()
    }

    /// The digest the ESP32-S3 driver computes for `message` in SHA_MODE `mode`: the state's first
    /// `digest` bytes, copied out as the mbedtls port's finish does.
    fn s3_digest(message: &[u8], mode: u32, block: usize, digest: usize) -> Vec<u8> {
        let mut chip = Chip::new("esp32s3");
        chip.write(S3_SHA, mode);
        for (i, b) in padded(message, block).chunks(block).enumerate() {
            s3_block(&mut chip, b, i == 0);
        }
        let mut state = s3_state(&mut chip, 16);
        state.truncate(digest);
        state
    }

    const TWO_BLOCKS_256: &[u8] = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    const TWO_BLOCKS_512: &[u8] = b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

    #[test]
    fn esp32s3_digests_match_the_algorithms_for_one_and_two_blocks() {
        for m in [&b"abc"[..], TWO_BLOCKS_256, TWO_BLOCKS_512] {
            assert_eq!(s3_digest(m, 0, 64, 20), sha1::Sha1::digest(m).to_vec());
            assert_eq!(s3_digest(m, 1, 64, 28), sha2::Sha224::digest(m).to_vec());
            assert_eq!(s3_digest(m, 2, 64, 32), sha2::Sha256::digest(m).to_vec());
            assert_eq!(s3_digest(m, 3, 128, 48), sha2::Sha384::digest(m).to_vec());
            assert_eq!(s3_digest(m, 4, 128, 64), sha2::Sha512::digest(m).to_vec());
            assert_eq!(
                s3_digest(m, 5, 128, 28),
                sha2::Sha512_224::digest(m).to_vec()
            );
            assert_eq!(
                s3_digest(m, 6, 128, 32),
                sha2::Sha512_256::digest(m).to_vec()
            );
        }
        assert_eq!(padded(TWO_BLOCKS_256, 64).len(), 128);
        assert_eq!(padded(TWO_BLOCKS_512, 128).len(), 256);
    }

    /// An interleaved hash (ESP32-S3 TRM §18.4.2.1): the state saved after a first block, another
    /// hash run, the state written back to H_n (sha_hal_write_digest) and the hash continued.
    #[test]
    fn esp32s3_resumes_from_a_state_written_back() {
        let blocks = padded(TWO_BLOCKS_256, 64);
        let mut chip = Chip::new("esp32s3");
        chip.write(S3_SHA, 2);
        s3_block(&mut chip, &blocks[..64], true);
        let saved = s3_state(&mut chip, 8);
        s3_block(&mut chip, &padded(b"other", 64), true);
        for (i, w) in memory_words(&saved).enumerate() {
            chip.write(S3_H + 4 * i as u32, w);
        }
        s3_block(&mut chip, &blocks[64..], false);
        assert_eq!(
            s3_state(&mut chip, 8),
            sha2::Sha256::digest(TWO_BLOCKS_256).to_vec()
        );
    }

    const ESP32_SHA: u32 = 0x3FF0_3000;

    /// The digest ESP-IDF's ESP32 driver computes with the engine whose START register is at
    /// `control` (CONTINUE, LOAD and BUSY follow it): message words written byte-swapped
    /// (bootloader_sha.c, sha_ll_fill_text_block), BUSY polled before each block and after LOAD,
    /// the digest read back as sha_ll_read_digest and the mbedtls port do. Also returns the
    /// busy reads after the first START and after LOAD.
    fn esp32_digest(
        message: &[u8],
        control: u32,
        block: usize,
        digest: usize,
    ) -> (Vec<u8>, u32, u32) {
        let (start, continue_block, load, busy) = (control, control + 4, control + 8, control + 12);
        let mut chip = Chip::new("esp32");
        let mut block_busy = 0;
        for (i, b) in padded(message, block).chunks(block).enumerate() {
            chip.wait_idle(busy);
            for (j, w) in memory_words(b).enumerate() {
                chip.write(ESP32_SHA + 4 * j as u32, w.swap_bytes());
            }
            chip.write(if i == 0 { start } else { continue_block }, 1);
            if i == 0 {
                block_busy = chip.wait_idle(busy);
            }
        }
        chip.wait_idle(busy);
        chip.write(load, 1);
        let load_busy = chip.wait_idle(busy);
        let text: Vec<u32> = (0..digest as u32 / 4)
            .map(|i| chip.read(ESP32_SHA + 4 * i))
            .collect();
        let out = if block == 128 {
            // sha_ll_read_digest: each pair of words swapped into a 64-bit state word, which
            // PUT_UINT64_BE writes out.
            text.chunks(2)
                .flat_map(|p| ((p[0] as u64) << 32 | p[1] as u64).to_be_bytes())
                .collect()
        } else {
            // bootloader_sha256_finish: each word byte-swapped into memory.
            text.iter()
                .flat_map(|w| w.swap_bytes().to_le_bytes())
                .collect()
        };
        (out, block_busy, load_busy)
    }

    #[test]
    fn esp32_engines_match_the_algorithms_for_one_and_two_blocks() {
        for m in [&b"abc"[..], TWO_BLOCKS_256, TWO_BLOCKS_512] {
            let (d, _, _) = esp32_digest(m, ESP32_SHA + 0x80, 64, 20);
            assert_eq!(d, sha1::Sha1::digest(m).to_vec());
            let (d, block_busy, load_busy) = esp32_digest(m, ESP32_SHA + 0x90, 64, 32);
            assert_eq!(d, sha2::Sha256::digest(m).to_vec());
            // BUSY reads 1 for the TRM's cycles (one cycle a read here) after a block and a load.
            assert!((95..=100).contains(&block_busy), "{block_busy}");
            assert!((15..=20).contains(&load_busy), "{load_busy}");
            let (d, _, _) = esp32_digest(m, ESP32_SHA + 0xA0, 128, 48);
            assert_eq!(d, sha2::Sha384::digest(m).to_vec());
            let (d, _, _) = esp32_digest(m, ESP32_SHA + 0xB0, 128, 64);
            assert_eq!(d, sha2::Sha512::digest(m).to_vec());
        }
    }
}
