#!/usr/bin/python3
# The `gpaw` energy oracle of apps/alloy: one DFT total energy with GPAW (Debian's gpaw,
# gpaw-data, python3-ase) per run. An external program, run per configuration by the workflow
# engine's `exec` module or by alloy::GpawOracle (run_program).
#
# Standard input, one JSON object:
#   {"symbols": ["Ni", "Al"],                    # one per atom
#    "cell": [[2.887, 0, 0], [0, 2.887, 0], [0, 0, 2.887]],   # Å, rows are the cell vectors
#    "scaled_positions": [[0, 0, 0], [0.5, 0.5, 0.5]],       # fractions of the cell vectors
#    "settings": {"ecut_ev": 300, "kpoint_density": 3.0,      # all optional (these defaults)
#                 "xc": "PBE", "smearing_ev": 0.1, "spin": "auto"}}
# Standard output, one JSON object:
#   {"energy_ev": ..., "atoms": 2, "energy_per_atom_ev": ..., "magnetic_moment": ..., "seconds": ...,
#    "code": "GPAW 22.8.0", "settings": {...}}
# Plane waves (PW ecut_ev), Monkhorst-Pack k-points of the given density (points per Å⁻¹, Γ-centred),
# Fermi-Dirac smearing, energies extrapolated to zero width (GPAW's get_potential_energy).
# spin "auto": spin-polarised when a Fe, Co or Ni atom is present (ferromagnetic start).
# Bad input (malformed JSON, an unknown element, a wrong count of positions) exits with status 2
# and a message naming it; a failing DFT run exits 1 with GPAW's message.
import json
import os
import sys
import time

MAGNETIC_START = {"Fe": 2.5, "Co": 1.7, "Ni": 0.7}
DEFAULTS = {"ecut_ev": 300.0, "kpoint_density": 3.0, "xc": "PBE", "smearing_ev": 0.1, "spin": "auto"}


def fail(status, message):
    print("gpaw_energy.py: " + message, file=sys.stderr)
    sys.exit(status)


def read_request():
    text = sys.stdin.read()
    if not text.strip():
        fail(2, "no input: a JSON object with symbols, cell and scaled_positions on stdin")
    try:
        request = json.loads(text)
    except json.JSONDecodeError as e:
        fail(2, "the input is not JSON: %s" % e)
    for key in ("symbols", "cell", "scaled_positions"):
        if key not in request:
            fail(2, "the input lacks '%s'" % key)
    symbols, positions = request["symbols"], request["scaled_positions"]
    if len(symbols) == 0 or len(symbols) != len(positions):
        fail(2, "%d symbols for %d positions" % (len(symbols), len(positions)))
    if len(request["cell"]) != 3 or any(len(row) != 3 for row in request["cell"]):
        fail(2, "the cell must be 3 rows of 3 numbers (Å)")
    settings = dict(DEFAULTS)
    unknown = set(request.get("settings", {})) - set(DEFAULTS)
    if unknown:
        fail(2, "unknown settings %s (known: %s)" % (sorted(unknown), sorted(DEFAULTS)))
    settings.update(request.get("settings", {}))
    return symbols, request["cell"], positions, settings


def check_elements(symbols, xc):
    from ase.data import chemical_symbols
    from gpaw import setup_paths

    for s in sorted(set(symbols)):
        if s not in chemical_symbols[1:]:
            fail(2, "unknown element '%s'" % s)
        if not any(os.path.exists(os.path.join(p, "%s.%s.gz" % (s, xc))) for p in setup_paths):
            fail(2, "no GPAW %s setup for element '%s' in %s" % (xc, s, setup_paths))


def main():
    symbols, cell, positions, settings = read_request()
    import gpaw
    from ase import Atoms
    from gpaw import GPAW, PW

    check_elements(symbols, settings["xc"])
    atoms = Atoms(symbols=symbols, cell=cell, scaled_positions=positions, pbc=True)
    spin = settings["spin"]
    polarised = any(s in MAGNETIC_START for s in symbols) if spin == "auto" else bool(spin)
    if polarised:
        atoms.set_initial_magnetic_moments([MAGNETIC_START.get(s, 0.0) for s in symbols])
    atoms.calc = GPAW(mode=PW(settings["ecut_ev"]), xc=settings["xc"],
                      kpts={"density": settings["kpoint_density"], "gamma": True},
                      occupations={"name": "fermi-dirac", "width": settings["smearing_ev"]},
                      spinpol=polarised, txt=None)
    start = time.time()
    try:
        energy = atoms.get_potential_energy()
    except Exception as e:  # GPAW's own error (no convergence, a bad cell): status 1, its message
        fail(1, "GPAW failed: %s: %s" % (type(e).__name__, e))
    moment = atoms.calc.get_magnetic_moment() if polarised else 0.0
    print(json.dumps({"energy_ev": energy, "atoms": len(atoms),
                      "energy_per_atom_ev": energy / len(atoms), "magnetic_moment": moment,
                      "seconds": time.time() - start, "code": "GPAW " + gpaw.__version__,
                      "settings": settings}))


if __name__ == "__main__":
    main()
