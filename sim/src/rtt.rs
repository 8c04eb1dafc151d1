//! SEGGER RTT, the console a debug probe reads from target memory: the firmware's `_SEGGER_RTT`
//! control block (SEGGER RTT, `SEGGER_RTT.h` `SEGGER_RTT_CB`: the 16-byte ID "SEGGER RTT", the
//! numbers of up and down buffers, then each up buffer `{ sName, pBuffer, SizeOfBuffer, WrOff,
//! RdOff, Flags }` of six 32-bit words). Between simulation slices the simulator does what the
//! probe does: reads what the firmware wrote to up buffer 0 (the terminal) between RdOff and WrOff
//! and advances RdOff, so a firmware that blocks while its buffer is full makes progress.

use tigris_cores::{Core, CoreError};

const ID: &[u8; 10] = b"SEGGER RTT";
pub struct Rtt {
    /// Address of `_SEGGER_RTT`.
    block: u32,
}

fn word(core: &dyn Core, addr: u32) -> Result<u32, CoreError> {
    let mut b = [0u8; 4];
    core.read_memory(addr, &mut b)?;
    Ok(u32::from_le_bytes(b))
}

impl Rtt {
    /// The control block of a firmware that has one.
    pub fn find(symbols: &[crate::elf::Symbol]) -> Option<Rtt> {
        symbols
            .iter()
            .find(|s| s.name == "_SEGGER_RTT" && !s.is_function)
            .map(|s| Rtt { block: s.addr })
    }

    /// Take what the firmware wrote to up buffer 0 since the last call, and mark it read. Nothing
    /// until the firmware has initialised the block's ID and declared an up buffer.
    pub fn drain(&self, core: &mut dyn Core) -> Result<Vec<u8>, CoreError> {
        let mut id = [0u8; 10];
        core.read_memory(self.block, &mut id)?;
        if &id != ID {
            return Ok(Vec::new());
        }
        if word(core, self.block + 16)? == 0 {
            return Ok(Vec::new());
        }
        let desc = self.block + 24;
        let (buffer, size, wr, rd) = (
            word(core, desc + 4)?,
            word(core, desc + 8)?,
            word(core, desc + 12)?,
            word(core, desc + 16)?,
        );
        let mut out = Vec::new();
        if size == 0 || wr >= size || rd >= size || wr == rd {
            return Ok(out);
        }
        let mut take = |from: u32, to: u32| -> Result<(), CoreError> {
            let mut bytes = vec![0u8; (to - from) as usize];
            core.read_memory(buffer.wrapping_add(from), &mut bytes)?;
            out.extend_from_slice(&bytes);
            Ok(())
        };
        if wr > rd {
            take(rd, wr)?;
        } else {
            take(rd, size)?;
            take(0, wr)?;
        }
        core.write_memory(desc + 16, &wr.to_le_bytes())?;
        Ok(out)
    }
}
