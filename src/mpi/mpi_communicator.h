// The ranks of an MPI job (Boost.MPI over Open MPI) as a chaintag::Communicator. Built only when
// CMake finds MPI (CHAINTAG_MPI); the chaintag binary uses it when started by mpirun.
#ifndef CHAINTAG_SRC_MPI_MPI_COMMUNICATOR_H_
#define CHAINTAG_SRC_MPI_MPI_COMMUNICATOR_H_

#include <memory>

#include "chaintag/communicator.h"

namespace chaintag {

// Whether the environment shows an MPI launcher (mpirun, srun with PMI) started this process.
bool LaunchedByMpi();

// Initialises MPI (once per process; finalised at exit) and returns MPI_COMM_WORLD. Errors on it
// are fatal to the job: a rank that dies ends every rank instead of leaving them waiting.
std::unique_ptr<Communicator> MakeMpiCommunicator();

// Ends the whole job with `code` (MPI_Abort): for a rank that fails while others may be waiting
// in a collective operation.
[[noreturn]] void AbortMpiJob(int code);

}  // namespace chaintag

#endif  // CHAINTAG_SRC_MPI_MPI_COMMUNICATOR_H_
