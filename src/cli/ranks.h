// The MPI ranks a command runs among (docs/distributed.md): `mpirun -np P chaintag train|tag ...`.
#ifndef CHAINTAG_CLI_RANKS_H_
#define CHAINTAG_CLI_RANKS_H_

#include "absl/status/statusor.h"
#include "chaintag/communicator.h"

namespace chaintag::cli {

// The ranks of the MPI job that started this process (MPI is initialised on the first call), or
// null when it was not started by an MPI launcher and `force` (--mpi) is false. An error when
// MPI is asked for but this binary was built without it.
absl::StatusOr<Communicator*> Ranks(bool force);

// Whether this process prints and writes for the job: rank 0, or a process alone.
bool LeadRank(const Communicator* ranks);

// The exit code of a command: a failed rank of a distributed job ends the whole job with its code
// (MPI_Abort) rather than leave the others waiting in a collective.
int EndRanks(int code);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_RANKS_H_
