-- Wireshark/tshark dissector for dccsim's packet captures (OUT/<variant>/packets.pcap).
--
-- dccsim writes each captured packet as an Ethernet/IPv4/TCP frame whose TCP header carries an
-- experimental option (kind 254, RFC 6994 ExID 0xDCC5) with the simulator's own fields, and
-- whose INT records (32 bytes per hop) are the first bytes of the TCP payload, or, when the
-- payload is shorter than them (ACKs, NACKs), an Ethernet trailer after the IP packet.
-- The format is documented in docs/results.md ("packets.pcap").
--
-- Use:  wireshark -X lua_script:dccsim.lua OUT/<variant>/packets.pcap
--       tshark -X lua_script:dccsim.lua -r packets.pcap -T fields -e dccsim.flow -e dccsim.int.qlen
-- or copy this file into Wireshark's personal plugins folder (Help > About > Folders).

local EXID = 0xDCC5
local HOP_BYTES = 32

local p = Proto("dccsim", "dccsim simulator fields")
local kinds = { [0] = "data", [1] = "ACK", [2] = "NACK" }
local f = p.fields
f.flow = ProtoField.uint32("dccsim.flow", "Flow id")
f.seq = ProtoField.uint64("dccsim.seq", "Sequence (data: first byte; ACK/NACK: next expected)")
f.size = ProtoField.uint32("dccsim.size", "Size on the wire (bytes)")
f.kind = ProtoField.uint8("dccsim.kind", "Kind", base.DEC, kinds)
f.prio = ProtoField.uint8("dccsim.prio", "Switch priority")
f.hops = ProtoField.uint8("dccsim.int_hops", "INT records")
f.hop = ProtoField.uint8("dccsim.int.hop", "Hop")
f.qlen = ProtoField.uint64("dccsim.int.qlen", "Queue (bytes)")
f.tx = ProtoField.uint64("dccsim.int.tx_bytes", "Transmitted (or received) bytes")
f.ts = ProtoField.uint64("dccsim.int.ts_ps", "Timestamp (ps)")
f.rate = ProtoField.uint64("dccsim.int.rate_bps", "Link rate (bit/s)")

local truncated = ProtoExpert.new("dccsim.int.truncated", "INT records not captured",
    expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { truncated }

local exid_f = Field.new("tcp.options.experimental.exid")
local data_f = Field.new("tcp.options.experimental.data")
local iplen_f = Field.new("ip.len")
local sport_f = Field.new("tcp.srcport")
local tcphdr_f = Field.new("tcp.hdr_len")

function p.dissector(tvb, pinfo, tree)
    local exids, datas = { exid_f() }, { data_f() }
    for i, e in ipairs(exids) do
        if e.value == EXID and datas[i] ~= nil and datas[i].len >= 20 then
            local d = datas[i].range
            local hops = d:range(18, 1):uint()
            local t = tree:add(p, d, "dccsim")
            t:add(f.flow, d:range(0, 4))
            t:add(f.seq, d:range(4, 8))
            t:add(f.size, d:range(12, 4))
            t:add(f.kind, d:range(16, 1))
            t:add(f.prio, d:range(17, 1))
            t:add(f.hops, d:range(18, 1))
            local kind = kinds[d:range(16, 1):uint()] or "?"
            pinfo.cols.info:append(string.format(" [dccsim flow %d %s]", d:range(0, 4):uint(), kind))
            if hops > 0 then
                local ip_end = iplen_f().offset - 2 + iplen_f().value
                local payload = sport_f().offset + tcphdr_f().value
                local n = hops * HOP_BYTES
                local at = (ip_end - payload >= n) and payload or ip_end
                if at + n > tvb:len() then
                    t:add_proto_expert_info(truncated)
                else
                    for h = 0, hops - 1 do
                        local r = tvb:range(at + h * HOP_BYTES, HOP_BYTES)
                        local ht = t:add(p, r, string.format("INT hop %d", h))
                        ht:add(f.hop, h)
                        ht:add(f.qlen, r:range(0, 8))
                        ht:add(f.tx, r:range(8, 8))
                        ht:add(f.ts, r:range(16, 8))
                        ht:add(f.rate, r:range(24, 8))
                    end
                end
            end
        end
    end
end

register_postdissector(p, true)
