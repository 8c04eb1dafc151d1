//! Default transaction phases of serial flash and PSRAM read/write commands, per device and mode.
//!
//! A board file names the mode and clock (`mode = "quad"`, `clock_mhz = 80`); the phase lengths below
//! follow from the command the controller uses in that mode. Any of them can be set in the board file
//! or with `--set` when a part differs. Figures are SPI clocks; sources on each line.

use crate::{RegionKind, SpiMode};

/// Phase lengths of one read or write transaction, in SPI clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Protocol {
    pub ddr: bool,
    pub command: u32,
    pub address: u32,
    pub read_dummy: u32,
    pub write_dummy: u32,
    /// Chip-select setup before the command and hold after the data, the driver's settings.
    pub cs: u32,
}

const fn p(ddr: bool, command: u32, address: u32, read_dummy: u32, write_dummy: u32) -> Protocol {
    Protocol {
        ddr,
        command,
        address,
        read_dummy,
        write_dummy,
        cs: 0,
    }
}

/// The default protocol of a `kind` (xip flash or psram) device in `mode`.
pub(crate) fn protocol(kind: RegionKind, mode: SpiMode) -> Protocol {
    match (kind, mode) {
        // SPI NOR flash (Winbond W25Q-class datasheets, the commands ESP-IDF and the RP2040 boot2 use):
        // 0x0B Fast Read: 8 command, 24 address clocks on one line, 8 dummy clocks.
        (RegionKind::Xip, SpiMode::Single) => p(false, 8, 24, 8, 0),
        // 0xBB Fast Read Dual I/O: command on one line, 24 address bits on two lines (12 clocks),
        // 8 mode bits on two lines (4 clocks, counted as dummy).
        (RegionKind::Xip, SpiMode::Dual) => p(false, 8, 12, 4, 0),
        // 0xEB Fast Read Quad I/O: command on one line, 24 address bits on four lines (6 clocks),
        // 2 mode + 4 dummy clocks.
        (RegionKind::Xip, SpiMode::Quad) => p(false, 8, 6, 6, 0),
        // Octal DTR flash: 16-bit command and 32-bit address on eight lines, both edges (1 + 2
        // clocks); 20 dummy clocks, the Macronix MX25UM default at its top clock.
        // ASSUMPTION: the dummy count ESP-IDF programs for octal flash was not found in a source.
        (RegionKind::Xip, SpiMode::Octal) => p(true, 1, 2, 20, 0),
        // PSRAM, single and dual lines: as flash (0x0B fast read with 8 dummy clocks; 0x02 write).
        // ASSUMPTION: ESP-IDF drives PSRAM in quad or octal mode only; these serve other boards.
        (RegionKind::Psram, SpiMode::Single) => p(false, 8, 24, 8, 0),
        (RegionKind::Psram, SpiMode::Dual) => p(false, 8, 12, 4, 0),
        // Quad PSRAM in QPI mode (ESP-IDF esp_psram_impl_quad.c: command mode QPI, 0xEB fast read quad
        // with 6 dummy clocks, 0x38 quad write with none): 8-bit command on four lines (2 clocks),
        // 24-bit address on four lines (6 clocks).
        (RegionKind::Psram, SpiMode::Quad) => p(false, 2, 6, 6, 0),
        // Octal DTR PSRAM (ESP-IDF esp_psram_impl_octal.c: 16-bit command, 32-bit address, read dummy
        // bit length 2 × (10 − 1) = 18 edges = 9 clocks, write dummy 2 × (5 − 1) = 8 edges = 4 clocks).
        // Chip select: the driver writes OCT_PSRAM_CS_SETUP_TIME 3 and OCT_PSRAM_CS_HOLD_TIME 3 into
        // SPI_MEM_SPI_SMEM_AC_REG, whose fields are (cycles − 1) of the PREP phase and the cycles of the
        // DONE phase in SPI clocks (ESP32-S3 TRM, SPI_MEM_SPI_SMEM_AC_REG; ESP-IDF soc/esp32s3
        // spi_mem_reg.h): 4 + 3 clocks per transaction.
        (RegionKind::Psram, SpiMode::Octal) => Protocol {
            cs: 4 + 3,
            ..p(true, 1, 2, 9, 4)
        },
        // Only xip and psram regions have a serial interface (checked by the parser).
        _ => p(false, 0, 0, 0, 0),
    }
}
